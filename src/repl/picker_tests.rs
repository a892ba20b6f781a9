//! Tests of the /resume picker: the state machine, the key decoding and the drawing.

use super::*;
use crate::glyphs::{ASCII, UNICODE};

fn picker() -> Picker {
    let item = |text: &str, aside: &str| Item { text: text.into(), aside: aside.into() };
    let items =
        vec![item("fix the parser", "3m ago"), item("write the README", "2h ago"), item("parser tests", "2026-12-02")];
    Picker::new("resume a session", "resumes", items, &UNICODE)
}

#[test]
fn typing_filters_arrows_move_enter_picks_esc_cancels() {
    let mut picker = picker();
    assert_eq!(picker.press(&PickerKey::Down), Step::Continue);
    assert_eq!(picker.press(&PickerKey::Down), Step::Continue);
    assert_eq!(picker.press(&PickerKey::Down), Step::Continue);
    assert_eq!(picker.press(&PickerKey::Enter), Step::Picked(2));
    for c in "PARSER ".chars() {
        picker.press(&PickerKey::Char(c));
    }
    assert_eq!(picker.matches(), vec![0, 2]);
    picker.press(&PickerKey::Char('t'));
    assert_eq!(picker.matches(), vec![2]);
    picker.press(&PickerKey::Backspace);
    picker.press(&PickerKey::Backspace);
    picker.press(&PickerKey::Down);
    assert_eq!(picker.press(&PickerKey::Enter), Step::Picked(2));
    picker.press(&PickerKey::Up);
    assert_eq!(picker.press(&PickerKey::Enter), Step::Picked(0));
    picker.press(&PickerKey::Char('x'));
    assert_eq!(picker.matches(), Vec::<usize>::new());
    assert_eq!(picker.press(&PickerKey::Enter), Step::Continue);
    picker.press(&PickerKey::ClearFilter);
    assert_eq!(picker.matches(), vec![0, 1, 2]);
    assert_eq!(picker.press(&PickerKey::Esc), Step::Cancelled);
}

#[test]
fn the_drawing_fits_the_screen_and_keeps_the_selection_in_view() {
    let items: Vec<Item> = (1..=37).map(|n| Item::plain(format!("session {n:02}"))).collect();
    let mut picker = Picker::new("resume a session", "resumes", items, &UNICODE);
    let rows = picker.render(40, 10, false);
    assert_eq!(rows.len(), 9);
    assert_eq!(rows[2], "› session 01");
    assert_eq!(rows[7], "  session 06");
    assert_eq!(rows[8], "  (0 above, 31 below; 6 of 37 shown)");
    for _ in 0..7 {
        picker.press(&PickerKey::Down);
    }
    let rows = picker.render(40, 10, false);
    assert_eq!(rows[2], "  session 03");
    assert_eq!(rows[7], "› session 08");
    assert_eq!(rows[8], "  (2 above, 29 below; 6 of 37 shown)");
    assert!(picker.render(20, 10, false).iter().all(|row| display_width(row) < 20));
}

#[test]
fn keys_are_decoded_from_raw_bytes() {
    use PickerKey::*;
    assert_eq!(parse_keys(b"ab\x1b[A\x1bOB\r"), vec![Char('a'), Char('b'), Up, Down, Enter]);
    assert_eq!(parse_keys(b"\x1b"), vec![Esc]);
    assert_eq!(parse_keys(b"\x1b[1;5C\x7f\x15"), vec![Other, Backspace, ClearFilter]);
    assert_eq!(parse_keys("é".as_bytes()), vec![Char('é')]);
}

#[test]
fn a_row_leads_with_its_text_and_ends_with_its_aside_at_any_width() {
    let long = "refactor the session listing so that the picker leads with the first prompt and a time";
    let item = Item { text: format!("  {long}"), aside: "yesterday".into() };
    // 80 columns: the text takes all the room the aside leaves, the row ends one column short.
    let row = render_item(&item, "›", 80, &UNICODE);
    assert_eq!(display_width(&row), 79, "{row}");
    assert!(row.starts_with("›   refactor the session listing so that the picker leads with the …"), "{row}");
    assert!(row.ends_with("…  yesterday"), "{row}");
    // A short text is padded, so the asides line up.
    let short = render_item(&Item { text: "  fix it".into(), aside: "3m ago".into() }, " ", 80, &UNICODE);
    assert_eq!(short, format!("    fix it{}  3m ago", " ".repeat(79 - 4 - 6 - 2 - 6)));
    // ASCII: the same layout with `>` and `...`.
    let ascii = render_item(&item, ">", 60, &ASCII);
    assert_eq!(display_width(&ascii), 59, "{ascii}");
    assert!(ascii.starts_with(">   refactor") && ascii.ends_with("...  yesterday") && ascii.is_ascii(), "{ascii}");
    // Too narrow to keep some text beside the aside: one line, cut at the end.
    let narrow = render_item(&item, "›", 24, &UNICODE);
    assert_eq!(narrow, "›   refactor the sessi…");
    for width in 1..100 {
        assert!(display_width(&render_item(&item, "›", width, &UNICODE)) < width.max(2), "{width}");
    }
}

#[test]
fn the_title_names_the_keys_in_the_locales_symbols() {
    let rows = Picker::new("resume a session", "resumes", Vec::new(), &ASCII).render(120, 10, false);
    assert_eq!(rows[0], "resume a session: type to filter | Up/Down move | Enter resumes | Esc cancels");
    let rows = Picker::new("resume a session", "resumes", Vec::new(), &UNICODE).render(120, 10, false);
    assert_eq!(rows[0], "resume a session: type to filter · ↑/↓ move · Enter resumes · Esc cancels");
}
