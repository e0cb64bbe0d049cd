//! The one modification time every entry of a pack carries.
//!
//! Real modification times differ between checkouts of the same files, so a
//! pack stamped with them would differ byte for byte. Every entry instead gets
//! one fixed time: `SOURCE_DATE_EPOCH` when set (the reproducible-builds
//! convention, seconds since 1970 UTC), else 1980-01-01 00:00:00, the earliest
//! time a zip can hold. Zip times are MS-DOS times: no time zone (the UTC
//! calendar time is written), two-second steps (odd seconds round down), and
//! years 1980 to 2107 (earlier and later times are clamped).

use zip::DateTime;

use super::PackError;

/// The environment variable of the reproducible-builds convention.
pub const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

/// The seconds to stamp a pack with: `explicit`, else `SOURCE_DATE_EPOCH`,
/// else `None` (the zip epoch). A variable that is set but not a whole number
/// is an error rather than silently ignored, as the convention asks.
pub(crate) fn resolve_epoch(explicit: Option<i64>) -> Result<Option<i64>, PackError> {
    if explicit.is_some() {
        return Ok(explicit);
    }
    match std::env::var(SOURCE_DATE_EPOCH) {
        Ok(value) if value.trim().is_empty() => Ok(None),
        Ok(value) => value
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| PackError::BadSourceDateEpoch(value)),
        Err(_) => Ok(None),
    }
}

/// The zip time for `epoch` seconds (UTC), clamped to what a zip can hold.
pub(crate) fn zip_time(epoch: Option<i64>) -> DateTime {
    let Some(epoch) = epoch else {
        return DateTime::default();
    };
    let days = epoch.div_euclid(86_400);
    let seconds_of_day = epoch.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    if year < 1980 {
        return DateTime::default();
    }
    if year > 2107 {
        return latest();
    }
    let hour = (seconds_of_day / 3600) as u8;
    let minute = (seconds_of_day % 3600 / 60) as u8;
    let second = (seconds_of_day % 60) as u8 & !1;
    DateTime::from_date_and_time(year as u16, month, day, hour, minute, second).unwrap_or_default()
}

fn latest() -> DateTime {
    DateTime::from_date_and_time(2107, 12, 31, 23, 59, 58).unwrap_or_default()
}

/// The proleptic Gregorian date of a day count since 1970-01-01, by the
/// era decomposition (400-year cycles of 146,097 days) that avoids any
/// table or loop.
pub(crate) fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let shifted = days + 719_468; // days since 0000-03-01
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u8;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u8;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(time: DateTime) -> (u16, u8, u8, u8, u8, u8) {
        (
            time.year(),
            time.month(),
            time.day(),
            time.hour(),
            time.minute(),
            time.second(),
        )
    }

    #[test]
    fn unset_is_the_zip_epoch() {
        assert_eq!(parts(zip_time(None)), (1980, 1, 1, 0, 0, 0));
    }

    #[test]
    fn epochs_become_utc_calendar_times() {
        // 2024-02-29 12:34:57 UTC: a leap day, and an odd second rounded down.
        assert_eq!(
            parts(zip_time(Some(1_709_210_097))),
            (2024, 2, 29, 12, 34, 56)
        );
        assert_eq!(parts(zip_time(Some(315_532_800))), (1980, 1, 1, 0, 0, 0));
        assert_eq!(parts(zip_time(Some(951_782_400))), (2000, 2, 29, 0, 0, 0));
    }

    #[test]
    fn out_of_range_times_are_clamped() {
        assert_eq!(parts(zip_time(Some(0))), (1980, 1, 1, 0, 0, 0));
        assert_eq!(parts(zip_time(Some(-86_400))), (1980, 1, 1, 0, 0, 0));
        assert_eq!(
            parts(zip_time(Some(i64::MAX / 2))),
            (2107, 12, 31, 23, 59, 58)
        );
    }
}
