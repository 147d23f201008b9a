//! List changes on a 2026-07-28 session: that revision sends `notifications/tools/list_changed`
//! only on a `subscriptions/listen` stream the client opens, so a session whose server
//! announces `tools.listChanged` keeps one open (rmcp's [`Peer::listen`]) and rings the same
//! hook the older revisions' notification rings.
//!
//! Connect waits (at most [`MCP_LISTEN_ACK_WAIT_MS`]) for the first stream's acknowledgement,
//! so that a change the server makes once connect has resolved reaches the bridge.
//!
//! The stream lives until the session closes. One that ends or fails while the session is open
//! is reopened after a doubling delay, at most [`MCP_LISTEN_MAX_REOPENS`] times in a row (a
//! stream that delivered a change counts as working again).

use std::time::Duration;

use rmcp::model::{ServerNotification, ServerPeerInfo, SubscriptionFilter};
use rmcp::service::Peer;
use rmcp::RoleClient;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

#[cfg(doc)]
use crate::limits::MCP_LISTEN_ACK_WAIT_MS;
use crate::limits::{MCP_LISTEN_MAX_REOPENS, MCP_LISTEN_REOPEN_DELAY_MS};

/// Called (on a runtime thread) when the server sends `notifications/tools/list_changed`.
pub type ListChangedHook = Arc<dyn Fn() + Send + Sync>;

/// Whether a session with this server needs a listen stream to hear list changes: a revision
/// without `initialize` whose server announces `tools.listChanged`.
#[must_use]
pub fn needs_stream(info: &ServerPeerInfo) -> bool {
    !info.protocol_version.has_initialize()
        && info
            .capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed)
            == Some(true)
}

/// Keeps a `subscriptions/listen` stream for tool list changes open on `peer` until `close`
/// fires, ringing `hook` for each change (see the module's doc). `first_opened` is told when
/// the first stream was acknowledged by the server, or failed to open.
pub fn spawn_tool_list_listener(
    peer: Peer<RoleClient>,
    hook: ListChangedHook,
    close: CancellationToken,
    first_opened: oneshot::Sender<()>,
) {
    tokio::spawn(async move {
        let mut failures = 0u32;
        let mut first_opened = Some(first_opened);
        loop {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            let opened = tokio::select! {
                opened = peer.listen(filter) => opened,
                () = close.cancelled() => return,
            };
            if let Some(told) = first_opened.take() {
                let _ = told.send(());
            }
            if let Ok(mut subscription) = opened {
                loop {
                    let next = tokio::select! {
                        next = subscription.next() => next,
                        () = close.cancelled() => {
                            let _ = subscription.cancel().await;
                            return;
                        }
                    };
                    match next {
                        Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                            failures = 0;
                            hook();
                        }
                        Ok(Some(_)) => {}
                        Ok(None) | Err(_) => break,
                    }
                }
            }
            failures += 1;
            if failures > MCP_LISTEN_MAX_REOPENS {
                return;
            }
            let delay = MCP_LISTEN_REOPEN_DELAY_MS.saturating_mul(1 << (failures - 1).min(16));
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(delay)) => {}
                () = close.cancelled() => return,
            }
        }
    });
}
