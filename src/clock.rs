//! Calendar arithmetic without a date crate: civil dates from day counts and back (Howard
//! Hinnant's algorithms), and local time through the C library's zone data.
//!
//! Invariant: pure apart from `to_local`, which asks `sys` for the zone's offset.

/// Local time of a UTC instant, for display.
pub fn to_local(utc_s: u64) -> i64 {
    let utc = i64::try_from(utc_s).unwrap_or(0);
    utc + crate::sys::local_utc_offset_s(utc)
}

/// (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

/// Day count since 1970-01-01 of a civil date (inverse of `civil_from_days`).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_index = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// `YYYY-MM-DD` of a Unix time, in local time.
pub(crate) fn local_date(unix_seconds: u64) -> String {
    let (year, month, day) = civil_from_days(to_local(unix_seconds).div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;
