//! Human-readable byte sizes, as the reference's `formatSize` prints them: in floating point,
//! with JavaScript's number formatting, so any number gives the reference's text.

use crate::js_number::js_number;

/// `<1024` → `"<b>B"`, below 1 MiB → `"<x.x>KB"`, otherwise `"<x.x>MB"`.
#[must_use]
pub fn format_size(bytes: u64) -> String {
    // A size above 2^53 bytes loses its low bits here, as it does in JavaScript.
    #[allow(clippy::cast_precision_loss)]
    format_size_js(bytes as f64)
}

/// [`format_size`] for any JavaScript number, as the reference computes it: `bytes < 1024`
/// prints the number as `String(bytes)` does (`1.5B`, `-1B`), otherwise
/// `(bytes / 1024).toFixed(1) + "KB"` or `(bytes / 1048576).toFixed(1) + "MB"` (`NaN` and
/// `Infinity` fail both comparisons and end as `NaNMB`, `InfinityMB`).
#[must_use]
pub fn format_size_js(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{}B", js_number(bytes))
    } else if bytes < 1024.0 * 1024.0 {
        format!("{}KB", to_fixed_1(bytes / 1024.0))
    } else {
        format!("{}MB", to_fixed_1(bytes / (1024.0 * 1024.0)))
    }
}

/// JavaScript's `x.toFixed(1)`: a tie rounds away from zero (Rust's `{:.1}` rounds it to
/// even), and `|x| >= 1e21` prints as `String(x)`.
fn to_fixed_1(x: f64) -> String {
    if x.is_nan() || x.abs() >= 1e21 {
        return js_number(x);
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    // A double halfway between two tenths is an odd number of quarters (`.25`, `.75`).
    let quarters = a * 4.0;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if quarters.fract() == 0.0 && (quarters as u128) % 2 == 1 {
        let tenths = (a * 10.0).ceil() as u128;
        return format!("{sign}{}.{}", tenths / 10, tenths % 10);
    }
    format!("{sign}{a:.1}")
}

/// What a size bound can refuse, by the facade's name: `imageFile`, `transformedImage` (what
/// a host's `transformImage` returned) and `document` (a file given to a document reader).
pub const SIZE_SUBJECTS: &[(&str, &str)] = &[
    ("imageFile", "Image file"),
    ("transformedImage", "Transformed image"),
    ("document", "Document"),
];

/// `<subject> is <size>, exceeds <limit> limit.` with both sizes as [`format_size`] prints
/// them; `subject` is a name of [`SIZE_SUBJECTS`] (another name is used as written).
#[must_use]
pub fn over_size_limit(subject: &str, size: u64, limit: u64) -> String {
    let subject = SIZE_SUBJECTS
        .iter()
        .find(|(name, _)| *name == subject)
        .map_or(subject, |(_, words)| words);
    format!(
        "{subject} is {}, exceeds {} limit.",
        format_size(size),
        format_size(limit)
    )
}

#[cfg(test)]
mod tests {
    use super::{format_size, format_size_js, over_size_limit};

    #[test]
    fn size_refusals_name_their_subject() {
        assert_eq!(
            over_size_limit("document", 2048, 1024),
            "Document is 2.0KB, exceeds 1.0KB limit."
        );
        assert_eq!(
            over_size_limit("transformedImage", 5, 4),
            "Transformed image is 5B, exceeds 4B limit."
        );
    }

    #[test]
    fn formats_each_unit_at_its_edges() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(1024), "1.0KB");
        assert_eq!(format_size(51_200), "50.0KB");
        assert_eq!(format_size(1024 * 1024 - 1), "1024.0KB");
        assert_eq!(format_size(1024 * 1024), "1.0MB");
        assert_eq!(format_size(10_000_000), "9.5MB");
    }

    #[test]
    fn any_number_prints_as_the_reference_prints_it() {
        for (bytes, text) in [
            (2f64.powi(70), "1125899906842624.0MB"),
            (1e30, "9.5367431640625e+23MB"),
            (1280.0, "1.3KB"),
            (1792.0, "1.8KB"),
            (1.5, "1.5B"),
            (-1.0, "-1B"),
            (-0.0, "0B"),
            (f64::NAN, "NaNMB"),
            (f64::INFINITY, "InfinityMB"),
            (f64::NEG_INFINITY, "-InfinityB"),
        ] {
            assert_eq!(format_size_js(bytes), text, "{bytes}");
        }
    }
}
