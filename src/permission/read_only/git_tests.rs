//! Unit tests of the git configuration check: which sections and keys name programs.

use super::*;

#[test]
fn git_configuration_sections_that_name_programs_are_refused() {
    let refused = |text: &str| config_runs_nothing(text).err();
    assert_eq!(refused("[core]\n\tbare = false\n\tfsmonitor = x\n[remote \"o\"]\n\turl = u\n[branch \"m\"]\n"), None);
    assert_eq!(refused("\u{feff}[core]\n# [diff] in a comment\n\tpager = less\n"), None);
    let section = |name: &str| Some(format!("a [{name}] section (it can name programs git runs)"));
    assert_eq!(refused("[diff]\n\texternal = sh x"), section("diff"));
    assert_eq!(refused("[Diff \"x\"]\n\ttextconv = sh"), section("diff"));
    assert_eq!(refused("[filter \"lfs\"]\n\tclean = sh"), section("filter"));
    assert_eq!(refused("[core] [gpg]\n\tprogram = x"), section("gpg"));
    assert_eq!(refused("  [log] showSignature = true"), section("log"));
    assert_eq!(refused("[include]\n\tpath = elsewhere"), section("include"));
    assert_eq!(refused("[includeIf \"gitdir:x\"]\n\tpath = y"), section("includeif"));
    assert_eq!(refused("[diff.x]\n\tcommand = y"), section("diff"));
    assert_eq!(refused("[core]\n\tworktree = /elsewhere"), Some("core.worktree (a work tree elsewhere)".to_string()));
}
