//! Tests of the /resume picker: the state machine, the key decoding and the drawing.

use super::*;

fn picker() -> Picker {
    Picker::new(vec![
        "20261204-120000-aaaa  fix the parser".into(),
        "20261203-120000-bbbb  write the README".into(),
        "20261202-120000-cccc  parser tests".into(),
    ])
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
    let items: Vec<String> = (1..=37).map(|n| format!("session {n:02}")).collect();
    let mut picker = Picker::new(items);
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
