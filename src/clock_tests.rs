//! Unit tests of `clock.rs`: civil dates round-trip.

use super::*;

#[test]
fn civil_dates_round_trip() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(951_782_400 / 86_400), (2000, 2, 29));
    assert_eq!(civil_from_days(1_796_200_000 / 86_400), (2026, 12, 2));
    for days in [-1_000_000, -1, 0, 59, 60, 11_016, 20_789, 1_000_000] {
        let (year, month, day) = civil_from_days(days);
        assert_eq!(days_from_civil(year, month, day), days);
    }
}
