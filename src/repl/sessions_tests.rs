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

#[test]
fn times_read_as_how_long_ago_in_the_fewest_words() {
    let now = 1_800_000_000;
    let ago = |seconds: u64| render_ago(now - seconds, now);
    assert_eq!(ago(0), "just now");
    assert_eq!(ago(59), "just now");
    assert_eq!(ago(60), "1m ago");
    assert_eq!(ago(3 * 60 + 59), "3m ago");
    assert_eq!(ago(3599), "59m ago");
    assert_eq!(ago(3600), "1h ago");
    assert_eq!(ago(2 * 3600 + 1800), "2h ago");
    assert_eq!(ago(24 * 3600 - 1), "23h ago");
    assert_eq!(ago(24 * 3600), "yesterday");
    assert_eq!(ago(48 * 3600 - 1), "yesterday");
    assert_eq!(ago(48 * 3600), "2d ago");
    assert_eq!(ago(5 * 86_400 + 7), "5d ago");
    assert_eq!(ago(7 * 86_400 - 1), "6d ago");
    // A week and more: the local date, however the zone shifts it.
    let date = ago(7 * 86_400);
    assert_eq!(date, crate::clock::local_date(now - 7 * 86_400));
    assert!(date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-', "{date}");
    // A write after now (a clock set back) is not in the future.
    assert_eq!(render_ago(now + 500, now), "just now");
}

#[test]
fn a_picker_row_is_the_first_prompt_and_how_long_ago() {
    let info = SessionInfo {
        id: "20261202-131500-aaaa".into(),
        modified_ms: 1_000_000 * 1000,
        title: "fix the \x1b[2Jparser".into(),
        model: "m".into(),
        owned: true,
    };
    let item = picker_item(&info, None, 1_000_000 + 3 * 3600);
    assert_eq!(item, Item { text: "  fix the ^[[2Jparser".into(), aside: "3h ago".into() });
    let current = picker_item(&info, Some("20261202-131500-aaaa"), 1_000_000);
    assert_eq!(current.text, "* fix the ^[[2Jparser");
    let foreign = SessionInfo { owned: false, title: String::new(), ..info };
    assert_eq!(picker_item(&foreign, None, 1_000_000).text, "  [not created here] 20261202-131500-aaaa");
}
