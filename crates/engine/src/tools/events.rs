//! The vocabulary of a dispatch's records: event types, the status of events and ledger rows,
//! ledger ids, durations and timestamps.

/// The `type` of each dispatch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `tool_execution_started`: `{ type, sessionId, runId, call }`.
    Started,
    /// `tool_execution_progress`: `{ type, sessionId, runId, toolCallId, name, progress, metadata }`.
    Progress,
    /// `tool_execution_finished`: `{ type, sessionId, runId, result, metadata }`.
    Finished,
    /// `tool_execution_error`: `{ type, sessionId, runId, call, error, metadata }`.
    Error,
    /// `tool_execution_blocked`: `{ type, sessionId, runId, toolCallId, name, reason, error, metadata }`.
    Blocked,
}

impl EventKind {
    /// The event's `type` string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "tool_execution_started",
            Self::Progress => "tool_execution_progress",
            Self::Finished => "tool_execution_finished",
            Self::Error => "tool_execution_error",
            Self::Blocked => "tool_execution_blocked",
        }
    }
}

/// The `status` of an event's metadata and of a ledger row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The call passed its gates (also every progress row).
    Started,
    /// `execute` returned a result.
    Finished,
    /// `execute` threw, or returned something that is not a result object.
    Error,
    /// A gate blocked the call before `execute`.
    Blocked,
}

impl Status {
    /// Every status, indexed by its code (`Status as u8`).
    pub const ALL: [Status; 4] = [Self::Started, Self::Finished, Self::Error, Self::Blocked];

    /// The status whose code (`Status as u8`) is `code`.
    #[must_use]
    pub fn from_code(code: u32) -> Option<Status> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i).copied())
    }

    /// The wire string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Finished => "finished",
            Self::Error => "error",
            Self::Blocked => "blocked",
        }
    }

    /// Whether a ledger row of this status carries `finishedAt`.
    #[must_use]
    pub const fn is_final(self) -> bool {
        !matches!(self, Self::Started)
    }
}

/// The prefix of every ledger row id (`toolcall_<unique>`).
pub const LEDGER_ID_PREFIX: &str = "toolcall_";

/// The `durationMs` of an event that started at `start_ms` (never negative).
#[must_use]
pub fn duration_ms(start_ms: f64, now_ms: f64) -> f64 {
    (now_ms - start_ms).max(0.0)
}

/// `ms` since the Unix epoch as an ISO 8601 UTC timestamp with milliseconds
/// (`2026-01-02T03:04:05.678Z`), the form of a ledger row's `startedAt`/`finishedAt`.
#[must_use]
pub fn iso_timestamp(ms: f64) -> String {
    let total = if ms.is_finite() { ms.floor() as i64 } else { 0 };
    let (days, rem) = (total.div_euclid(86_400_000), total.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_utc_with_milliseconds() {
        assert_eq!(iso_timestamp(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso_timestamp(1_767_323_045_678.0),
            "2026-01-02T03:04:05.678Z"
        );
        assert_eq!(iso_timestamp(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(duration_ms(10.0, 5.0), 0.0);
    }
}
