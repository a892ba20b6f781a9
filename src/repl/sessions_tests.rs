//! Tests of the REPL's session list and pick.

use super::*;

#[test]
fn the_list_fits_one_screen_and_shows_the_newest() {
    assert_eq!(plan_list_rows(37, 20), 16);
    assert_eq!(plan_list_rows(17, 20), 17);
    assert_eq!(plan_list_rows(18, 20), 16);
    assert_eq!(plan_list_rows(3, 20), 3);
    assert_eq!(plan_list_rows(37, 5), 3);
}

#[test]
fn picks_by_number_or_id() {
    let info = |id: &str| SessionInfo {
        id: id.into(),
        modified_ms: 0,
        title: String::new(),
        model: String::new(),
        owned: true,
    };
    let sessions = vec![info("20261202-131500-aaaa"), info("20261201-131500-bbbb")];
    assert_eq!(plan_pick(&sessions, "2"), Ok("20261201-131500-bbbb".into()));
    assert_eq!(plan_pick(&sessions, "20261202-131500-aaaa"), Ok("20261202-131500-aaaa".into()));
    assert!(plan_pick(&sessions, "0").unwrap_err().contains("no session number 0"));
    assert!(plan_pick(&sessions, "3").is_err());
    assert!(plan_pick(&sessions, "20991231-000000-cccc").is_err());
}
