//! Every default and hard cap of the engine, as typed constants with their units in the name.
//!
//! Each area adds its limits here, default and hard cap side by side, so that a reader sees
//! every bound the package enforces in one file.

/// A bound that a host may configure: its default and the largest value it may be set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The option's name as hosts spell it (used in error messages).
    pub name: &'static str,
    /// The value used when the host sets none.
    pub default: u64,
    /// The largest value the host may set.
    pub hard: u64,
}

impl Limit {
    /// Checks a host-supplied value: a whole number from 1 to [`Limit::hard`].
    ///
    /// `None` gives the default. Non-finite, fractional, zero, negative and unsafe (above
    /// 2^53 - 1) values are rejected with [`LimitError`].
    ///
    /// # Errors
    /// [`LimitError`] names the limit and its hard cap.
    pub fn resolve(&self, value: Option<f64>) -> Result<u64, LimitError> {
        let Some(v) = value else {
            return Ok(self.default);
        };
        if is_positive_safe_integer(v) && v <= self.hard as f64 {
            Ok(v as u64)
        } else {
            Err(LimitError {
                name: self.name,
                hard: self.hard,
            })
        }
    }
}

/// 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether `v` is a whole number from 1 to `Number.MAX_SAFE_INTEGER`.
#[must_use]
pub fn is_positive_safe_integer(v: f64) -> bool {
    v.is_finite() && v.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&v)
}

/// A configured limit that is not a positive safe integer within its hard cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} must be a positive safe integer no greater than {hard}")]
pub struct LimitError {
    /// The option's name.
    pub name: &'static str,
    /// Its hard cap.
    pub hard: u64,
}

// --- JSON Schema validation (API.md section 7) -------------------------------------------

// --- MCP bridge (API.md section 8) ------------------------------------------------------------

// --- Coding tools (API.md section 10) -----------------------------------------------------------

/// Lines of text one read page or one shell tail shows: default 2,000, hard cap 100,000.
pub const CODING_MAX_LINES: Limit = Limit {
    name: "maxLines",
    default: 2_000,
    hard: 100_000,
};
/// Bytes of text one read page or one shell tail shows: default 50 KiB, hard cap 1 MiB.
pub const CODING_MAX_BYTES: Limit = Limit {
    name: "maxBytes",
    default: 51_200,
    hard: 1_048_576,
};
/// Bytes a text read may scan to reach its page: default 64 MiB, hard cap 1 GiB.
pub const READ_MAX_SCAN_BYTES: Limit = Limit {
    name: "maxScanBytes",
    default: 64 << 20,
    hard: 1 << 30,
};
/// Bytes of one image a read returns: default 10,000,000, hard cap 32 MiB.
pub const READ_MAX_IMAGE_BYTES: Limit = Limit {
    name: "maxImageBytes",
    default: 10_000_000,
    hard: 32 << 20,
};
/// UTF-8 bytes of one write's content: default 8 MiB, hard cap 64 MiB.
pub const WRITE_MAX_INPUT_BYTES: Limit = Limit {
    name: "maxInputBytes",
    default: 8 << 20,
    hard: 64 << 20,
};
/// Size of a file an edit may open: default 8 MiB, hard cap 64 MiB.
pub const EDIT_MAX_FILE_BYTES: Limit = Limit {
    name: "maxFileBytes",
    default: 8 << 20,
    hard: 64 << 20,
};
/// UTF-8 bytes of one edit's replacements together: default 2 MiB, hard cap 16 MiB.
pub const EDIT_MAX_INPUT_BYTES: Limit = Limit {
    name: "maxInputBytes",
    default: 2 << 20,
    hard: 16 << 20,
};
/// Replacements in one edit call: default 100, hard cap 1,000.
pub const EDIT_MAX_EDITS: Limit = Limit {
    name: "maxEdits",
    default: 100,
    hard: 1_000,
};
/// Seconds a shell command may run: default 600, hard cap 3,600.
pub const SHELL_TIMEOUT_SECS: Limit = Limit {
    name: "timeout",
    default: 600,
    hard: 3_600,
};
/// Bytes of output a shell command may produce before it is killed: default 64 MiB, hard cap 1 GiB.
pub const SHELL_MAX_TOTAL_OUTPUT_BYTES: Limit = Limit {
    name: "maxTotalOutputBytes",
    default: 64 << 20,
    hard: 1 << 30,
};
/// Bytes of a file the image sniffer looks at (the magic-byte window).
pub const IMAGE_SNIFF_BYTES: usize = 4_100;
/// Chunk size of streamed reads (text pages and shell pipes).
pub const STREAM_CHUNK_BYTES: usize = 64 * 1024;
/// How long shell output must stay idle after the command exits before reading stops.
pub const SHELL_STDIO_IDLE_GRACE: std::time::Duration = std::time::Duration::from_millis(100);

// --- Coding security (API.md section 9) ---------------------------------------------------------

/// How long `createCodingApprovalPolicy` waits for the host's `approve` callback, in
/// milliseconds (`approvalTimeoutMs`; a value `<= 0` waits without a timeout). Default 30,000.
pub const POLICY_APPROVAL_TIMEOUT_MS_DEFAULT: u64 = 30_000;

/// Entries in one approval policy's decision cache; the oldest insertion is evicted first.
/// Fixed at 1,000, as in the reference.
pub const POLICY_APPROVAL_CACHE_ENTRIES: usize = 1_000;

/// The longest command (UTF-8 bytes) the shell analysis parses. A longer command is not
/// analysed and needs approval. Fixed at 256 KiB.
pub const POLICY_ANALYSIS_MAX_COMMAND_BYTES: usize = 256 * 1024;

/// How deeply `bash -c` strings, `eval` arguments and wrappers may nest inside one another
/// before the analysis gives up (and the command needs approval). Fixed at 8.
pub const POLICY_ANALYSIS_MAX_NESTING: usize = 8;

/// The most simple commands one analysis reports before it gives up (and the command needs
/// approval). Fixed at 4,096.
pub const POLICY_ANALYSIS_MAX_PARTS: usize = 4_096;

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limit = Limit {
        name: "maxThings",
        default: 8,
        hard: 64,
    };

    #[test]
    fn resolves_default_and_edges() {
        assert_eq!(L.resolve(None), Ok(8));
        assert_eq!(L.resolve(Some(1.0)), Ok(1));
        assert_eq!(L.resolve(Some(64.0)), Ok(64));
    }

    #[test]
    fn rejects_out_of_range_and_non_integers() {
        for bad in [
            0.0,
            -1.0,
            65.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            MAX_SAFE_INTEGER + 2.0,
        ] {
            let err = L.resolve(Some(bad)).err();
            assert_eq!(
                err.map(|e| e.to_string()),
                Some("maxThings must be a positive safe integer no greater than 64".to_owned()),
                "{bad}"
            );
        }
    }
}
