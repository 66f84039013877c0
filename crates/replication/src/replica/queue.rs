//! The in-memory queue of whole transactions between the receiver and the applier (in place
//! of MySQL's relay log), bounded so that a slow applier slows the receiver down.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use binlog::{Event, GtidSet, Uuid};
use parking_lot::{Condvar, Mutex};

/// Bytes of events the queue holds before the receiver waits.
const MAX_BYTES: u64 = 64 << 20;

/// One transaction as received: its GTID and events.
#[derive(Debug, Clone)]
pub struct QueuedTrx {
    /// The source's UUID.
    pub uuid: Uuid,
    /// GNO.
    pub gno: u64,
    /// When it first committed (on the original source), microseconds since the epoch.
    pub original_micros: u64,
    /// When it committed on the source, seconds since the epoch (Seconds_Behind_Source).
    pub commit_secs: u64,
    /// The events after the GTID event.
    pub events: Vec<Event>,
    /// The source's binlog file and the end position of the transaction.
    pub end_file: String,
    /// End position.
    pub end_pos: u64,
    /// Size of its events.
    pub bytes: u64,
}

#[derive(Default)]
struct Inner {
    items: VecDeque<Arc<QueuedTrx>>,
    bytes: u64,
}

/// The queue (thread-safe).
#[derive(Default)]
pub struct Queue {
    inner: Mutex<Inner>,
    cv: Condvar,
}

impl Queue {
    /// An empty queue.
    pub fn new() -> Self {
        Queue::default()
    }

    /// Appends `t`, waiting while the queue is full; false (not added) when `stop` is set.
    pub fn push(&self, t: QueuedTrx, stop: &AtomicBool) -> bool {
        let mut g = self.inner.lock();
        while g.bytes > MAX_BYTES && !g.items.is_empty() {
            if stop.load(Ordering::SeqCst) {
                return false;
            }
            self.cv.wait_for(&mut g, Duration::from_millis(200));
        }
        g.bytes += t.bytes;
        g.items.push_back(Arc::new(t));
        self.cv.notify_all();
        true
    }

    /// The oldest transaction, waiting up to `wait` for one.
    pub fn front(&self, wait: Duration) -> Option<Arc<QueuedTrx>> {
        let mut g = self.inner.lock();
        if g.items.is_empty() {
            self.cv.wait_for(&mut g, wait);
        }
        g.items.front().cloned()
    }

    /// Removes the oldest transaction (applied).
    pub fn pop_front(&self) {
        let mut g = self.inner.lock();
        if let Some(t) = g.items.pop_front() {
            g.bytes -= t.bytes;
        }
        self.cv.notify_all();
    }

    /// The GTIDs waiting.
    pub fn gtids(&self) -> GtidSet {
        let mut s = GtidSet::new();
        for t in &self.inner.lock().items {
            s.add(t.uuid, t.gno);
        }
        s
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.inner.lock().items.is_empty()
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.inner.lock().bytes
    }

    /// Drops everything (RESET REPLICA).
    pub fn clear(&self) {
        let mut g = self.inner.lock();
        g.items.clear();
        g.bytes = 0;
        self.cv.notify_all();
    }

    /// Wakes the waiting threads (a stop).
    pub fn wake(&self) {
        self.cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trx(gno: u64) -> QueuedTrx {
        QueuedTrx {
            uuid: Uuid([1; 16]),
            gno,
            original_micros: 0,
            commit_secs: 0,
            events: vec![],
            end_file: String::new(),
            end_pos: 0,
            bytes: 10,
        }
    }

    #[test]
    fn keeps_order_and_the_waiting_gtids() {
        let q = Queue::new();
        let stop = AtomicBool::new(false);
        assert!(q.push(trx(1), &stop));
        assert!(q.push(trx(2), &stop));
        assert_eq!(q.bytes(), 20);
        assert_eq!(q.front(Duration::ZERO).unwrap().gno, 1);
        assert!(q.gtids().contains(&Uuid([1; 16]), 2));
        q.pop_front();
        assert_eq!(q.front(Duration::ZERO).unwrap().gno, 2);
        q.clear();
        assert!(q.is_empty());
        assert!(q.front(Duration::from_millis(1)).is_none());
    }
}
