//! Image detection by magic bytes (never by file extension), over the first
//! [`IMAGE_SNIFF_BYTES`](crate::limits::IMAGE_SNIFF_BYTES) bytes of a file.
//!
//! Supported: JPEG (but not JPEG-LS, `ff d8 ff f7`), PNG with an IHDR chunk (APNG rejected),
//! GIF, WEBP and BMP with a valid header. Anything else reads as text.

/// The MIME type of the image whose first bytes are `head`, or `None` for a non-image (or an
/// unsupported image type).
#[must_use]
pub fn sniff_image_mime(head: &[u8]) -> Option<&'static str> {
    let kind = infer::get(head)?;
    match kind.mime_type() {
        "image/jpeg" if head.get(3) != Some(&0xf7) => Some("image/jpeg"),
        "image/png" if is_plain_png(head) => Some("image/png"),
        "image/gif" => Some("image/gif"),
        "image/webp" => Some("image/webp"),
        "image/bmp" if is_valid_bmp(head) => Some("image/bmp"),
        _ => None,
    }
}

/// A PNG whose first chunk is IHDR and that has no `acTL` (animation) chunk in the window.
fn is_plain_png(head: &[u8]) -> bool {
    head.get(12..16) == Some(b"IHDR") && memchr::memmem::find(head, b"acTL").is_none()
}

/// A BMP whose DIB header size is one of the known ones and whose pixel offset is sane.
fn is_valid_bmp(head: &[u8]) -> bool {
    let le32 = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(offset), Some(dib)) = (le32(10), le32(14)) else {
        return false;
    };
    matches!(dib, 12 | 40 | 52 | 56 | 64 | 108 | 124) && offset >= 14 + dib
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(extra: &[u8]) -> Vec<u8> {
        let mut v = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
        v.extend_from_slice(b"IHDR");
        v.extend_from_slice(&[0; 17]);
        v.extend_from_slice(extra);
        v
    }

    #[test]
    fn detects_supported_types() {
        assert_eq!(sniff_image_mime(&png(b"")), Some("image/png"));
        assert_eq!(
            sniff_image_mime(&[0xff, 0xd8, 0xff, 0xe0, 0, 0]),
            Some("image/jpeg")
        );
        assert_eq!(
            sniff_image_mime(b"GIF89a\x01\x00\x01\x00"),
            Some("image/gif")
        );
        assert_eq!(
            sniff_image_mime(b"RIFF\x00\x00\x00\x00WEBPVP8 "),
            Some("image/webp")
        );
        let mut bmp = b"BM".to_vec();
        bmp.extend_from_slice(&[0; 8]);
        bmp.extend_from_slice(&54u32.to_le_bytes());
        bmp.extend_from_slice(&40u32.to_le_bytes());
        bmp.extend_from_slice(&[0; 20]);
        assert_eq!(sniff_image_mime(&bmp), Some("image/bmp"));
    }

    #[test]
    fn rejects_lookalikes() {
        assert_eq!(sniff_image_mime(&png(b"acTL")), None);
        assert_eq!(sniff_image_mime(&[0xff, 0xd8, 0xff, 0xf7, 0, 0]), None);
        assert_eq!(
            sniff_image_mime(b"BM not really a bitmap header at all"),
            None
        );
        assert_eq!(sniff_image_mime(b"hello world"), None);
    }
}
