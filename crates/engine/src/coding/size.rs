//! Human-readable byte sizes, as the reference's `formatSize` prints them.

/// `<1024` → `"<b>B"`, below 1 MiB → `"<x.x>KB"`, otherwise `"<x.x>MB"`.
#[must_use]
pub fn format_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}MB", bytes as f64 / (1024.0 * 1024.0))
    }
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
    use super::{format_size, over_size_limit};

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
}
