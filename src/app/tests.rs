//! The wiring's pure decisions: terminal escapes, and the environment children are handed.

use super::*;

#[test]
fn escapes_need_a_terminal_that_is_not_dumb_and_colour_needs_no_no_color() {
    let style = |color, cursor| TerminalStyle { color, cursor, glyphs: &crate::glyphs::UNICODE };
    assert_eq!(plan_terminal_style(true, Some("xterm-256color"), None, true), style(true, true));
    assert_eq!(plan_terminal_style(true, Some("xterm"), Some(""), true), style(true, true));
    assert_eq!(plan_terminal_style(true, Some("xterm"), Some("1"), true), style(false, true));
    assert_eq!(plan_terminal_style(true, Some("dumb"), None, true), style(false, false));
    assert_eq!(plan_terminal_style(false, Some("xterm"), None, true), style(false, false));
    // The symbols follow the locale alone, terminal or not.
    assert_eq!(plan_terminal_style(true, Some("xterm"), None, false).glyphs, &crate::glyphs::ASCII);
    assert_eq!(plan_terminal_style(false, Some("dumb"), None, true).glyphs, &crate::glyphs::UNICODE);
}

#[test]
fn the_locale_is_utf8_only_when_its_codeset_says_so() {
    let utf8 = |lc_all, lc_ctype, lang| locale_is_utf8(lc_all, lc_ctype, lang);
    // One variable at a time, as LANG.
    for (lang, expected) in [
        ("C.UTF-8", true),
        ("en_US.UTF-8", true),
        ("en_US.utf8", true),
        ("de_DE.Utf-8", true),
        ("sr_RS.UTF-8@latin", true),
        ("en_US.UTF-8@euro", true),
        ("C", false),
        ("POSIX", false),
        ("en_US", false),
        ("en_US.ISO-8859-1", false),
        ("de_DE@euro", false),
        ("ja_JP.eucJP", false),
        ("en_US.UTF-16", false),
        ("", false),
    ] {
        assert_eq!(utf8(None, None, Some(lang)), expected, "LANG={lang}");
    }
    assert!(!utf8(None, None, None), "nothing set is the C locale");
    // The first non-empty of LC_ALL, LC_CTYPE, LANG decides; the others are not looked at.
    assert!(!utf8(Some("C"), Some("en_US.UTF-8"), Some("en_US.UTF-8")));
    assert!(utf8(Some("en_US.UTF-8"), Some("C"), Some("C")));
    assert!(!utf8(None, Some("POSIX"), Some("C.UTF-8")));
    assert!(utf8(Some(""), Some(""), Some("C.UTF-8")), "empty values are skipped");
    assert!(!utf8(Some(""), Some("C"), Some("C.UTF-8")));
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

#[test]
fn the_probe_tries_ollama_vllm_llama_cpp_and_lm_studio_and_the_guide_names_them() {
    let env = Env::from_vars(std::collections::HashMap::new());
    let ports = setup::probe_ports(&env);
    let numbers: Vec<u16> = ports.iter().map(|(port, _)| *port).collect();
    assert_eq!(numbers, [11434, 8000, 8080, 1234]);
    let guide = setup::setup_guide(std::path::Path::new("/h/config.yaml"), &ports);
    for named in
        ["ollama (127.0.0.1:11434)", "vllm (127.0.0.1:8000)", "llama.cpp (127.0.0.1:8080)", "lmstudio (127.0.0.1:1234)"]
    {
        assert!(guide.contains(named), "{named}: {guide}");
    }
}
