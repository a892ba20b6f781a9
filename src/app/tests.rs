//! The wiring's pure decisions: terminal escapes, and the environment children are handed.

use super::*;

#[test]
fn escapes_need_a_terminal_that_is_not_dumb_and_colour_needs_no_no_color() {
    let style = |color, cursor| TerminalStyle { color, cursor };
    assert_eq!(plan_terminal_style(true, Some("xterm-256color"), None), style(true, true));
    assert_eq!(plan_terminal_style(true, Some("xterm"), Some("")), style(true, true));
    assert_eq!(plan_terminal_style(true, Some("xterm"), Some("1")), style(false, true));
    assert_eq!(plan_terminal_style(true, Some("dumb"), None), style(false, false));
    assert_eq!(plan_terminal_style(false, Some("xterm"), None), style(false, false));
}

#[test]
fn the_environment_everything_is_handed_has_only_absolute_path_entries() {
    let vars = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let env = Env::from_vars(vars(&[("PATH", "bin:/usr/bin::."), ("HOME", "/h")]));
    assert_eq!(env.get("PATH").as_deref(), Some("/usr/bin"));
    assert!(env.pairs().any(|pair| pair == ("PATH".to_string(), "/usr/bin".to_string())));
    assert!(env.path_warning().unwrap().message.starts_with(r#"left out "bin", "", "." for commands"#));
    let unset = Env::from_vars(vars(&[("HOME", "/h")]));
    assert_eq!(unset.get("PATH").as_deref(), Some(search_path::FALLBACK));
    assert_eq!(unset.path_warning(), None);
    let clean = Env::from_vars(vars(&[("PATH", "/usr/bin:/bin")]));
    assert_eq!((clean.get("PATH").as_deref(), clean.path_warning()), (Some("/usr/bin:/bin"), None));
}
