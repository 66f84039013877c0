//! The thread pool (`thread_handling=pool-of-threads`), after the MySQL 5.5 thread pool design
//! (reference notes §3.2–§3.5).
//!
//! * Connections are assigned round-robin to `thread_pool_size` **thread groups** when they
//!   connect. One worker of a group at a time is its **listener** (the reference's *waiter*): it
//!   waits (epoll, via the `polling` crate, in oneshot mode) on the sockets of the group's idle
//!   connections, so an idle connection costs no thread. When events arrive it queues them and,
//!   if the group has room, runs the first itself (no hand-off to another thread); the role is
//!   then vacant until a worker runs out of work, a statement begins a wait, or the timer (within
//!   10 ms) wakes a thread for it.
//! * When a socket becomes readable its connection is queued: in the group's **high-priority**
//!   queue if it is inside a transaction (or the session set
//!   `thread_pool_high_priority_connection`), else in the **low-priority** queue. A new
//!   connection gets its greeting from the accept thread (a non-blocking write) and is parked
//!   until the client answers; authentication then runs on a worker like a statement.
//! * **Workers** take queued work while fewer than `1 + thread_pool_oversubscribe` statements of
//!   the group are *active*, but a worker that takes work wakes no other: the group aims at one
//!   running statement (the reference's design, and MariaDB's pool), and the queue waits for the
//!   worker to come back to it. A statement stops counting as active while it reports a wait
//!   (`common::wait`: row locks, SLEEP, user locks, commit fsync, authentication round trips) and
//!   when the **timer** declares it stalled (running longer than `thread_pool_stall_limit`); the
//!   group then wakes an idle worker or starts a new one for the queue.
//! * A low-priority statement queued longer than `thread_pool_prio_kickup_timer` moves to the
//!   high-priority queue, at most one per 10 ms per group.
//! * Idle workers sleep; at most `thread_pool_max_unused_threads` per group are kept (0 = all).
//!
//! The scheduling rules live in [`GroupState`] / [`Sched`], which take the current time as an
//! argument and are unit-tested without clocks or threads; [`Pool`] adds the threads, the
//! pollers and the sockets.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::wait::{WaitHandler, WaitType};
use parking_lot::{Condvar, Mutex};
use polling::{Event, Events, Poller};

use crate::backend::Backend;
use crate::conn::{Connection, Flow};
use crate::listener::{ActiveGuard, ConnectionRegistry, Socket};

/// At most one priority kick-up per this interval per group.
pub const KICKUP_SPACING: Duration = Duration::from_millis(10);

/// How long a worker keeps its connection after a statement inside a transaction, waiting on
/// the socket for the next command, when the group has no more connections than it may run at
/// once (see [`GroupState::linger`]). A client in a transaction answers within this; the
/// connection then skips the park / poll / queue round (an epoll re-arm and a listener
/// wake-up per statement). Past it, the connection is parked as usual, so an idle connection
/// still holds no thread.
///
/// Between autocommit statements only in a small pool (see [`LINGER_AUTOCOMMIT_GROUPS`]).
///
/// Not with a single connection in the whole server: a lone client waiting on its socket
/// this way ran at half the rate of the parked path on the 2-core machine the benchmarks run
/// on (11k against 23k point selects a second; MariaDB's thread per connection, which also
/// waits on the socket, ran 8k there), while from 2 connections up it ran 15–20 % faster.
/// The cause was not found; the measurement decides.
const LINGER: Duration = Duration::from_millis(50);

/// The most thread groups with which a connection lingers after autocommit statements too.
///
/// In a larger pool the worker that lingers sleeps on the socket once per statement, where a
/// parked connection is usually picked up by a worker coming back from its last statement
/// without sleeping. On the 16-core machine (8 cores and 8 groups for the server, sysbench on
/// the other 8) lingering after every statement gave 1.2 context switches per point select and
/// 229-319k of them a second at 16 connections, parking 0.07 and 304-328k; inside a
/// transaction lingering kept oltp_read_write's 5.6-6.1k transactions a second at 16
/// connections, which parking after every statement lowered by up to 18 %
/// (docs/benchmarks/2026-11-27-many-cores-pool.md). On the 2-core machine (2 groups, sysbench
/// on the same cores) it is the other way round: at 8 connections, point selects ran at
/// 21-39k a second lingering and 16-22k parking, alternating runs of one build. Where the
/// crossover lies between 2 and 8 groups was not measured.
const LINGER_AUTOCOMMIT_GROUPS: usize = 2;

/// How often the timer thread checks for stalls and kick-ups.
const TICK: Duration = Duration::from_millis(10);

/// How often a listener looks for connections past their wait_timeout / connect_timeout.
const EXPIRY_SCAN: Duration = Duration::from_millis(500);

/// Fixed pool sizing (read-only system variables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    /// `thread_pool_size`: number of thread groups.
    pub size: usize,
    /// `thread_pool_max_threads`: the most worker threads one group may have (a safety bound;
    /// every statement in a reported wait holds one).
    pub max_threads: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            size: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(4),
            max_threads: 100_000,
        }
    }
}

// ------------------------------------------------------------------------------------------
// Scheduling core (no threads, no clocks)

/// A queued unit of work: a connection with a readable socket (or a new connection).
#[derive(Debug)]
pub(crate) struct Queued<T> {
    pub item: T,
    pub conn: u32,
    pub since: Instant,
}

/// A group's two queues and the kick-up rule.
#[derive(Debug)]
pub(crate) struct Sched<T> {
    high: VecDeque<Queued<T>>,
    low: VecDeque<Queued<T>>,
    last_kickup: Option<Instant>,
    kickups: u64,
}

impl<T> Default for Sched<T> {
    fn default() -> Self {
        Sched {
            high: VecDeque::new(),
            low: VecDeque::new(),
            last_kickup: None,
            kickups: 0,
        }
    }
}

impl<T> Sched<T> {
    /// Queues `item` (connection `conn`) at the back of the high- or low-priority queue.
    pub fn push(&mut self, item: T, conn: u32, high: bool, now: Instant) {
        let q = Queued {
            item,
            conn,
            since: now,
        };
        if high {
            self.high.push_back(q)
        } else {
            self.low.push_back(q)
        }
    }

    /// Moves the oldest low-priority entry to the high-priority queue if it has waited at least
    /// `timer` and no kick-up happened in the last [`KICKUP_SPACING`]. Returns true if it did.
    pub fn kickup(&mut self, now: Instant, timer: Duration) -> bool {
        let Some(front) = self.low.front() else {
            return false;
        };
        if now.saturating_duration_since(front.since) < timer {
            return false;
        }
        if let Some(last) = self.last_kickup {
            if now.saturating_duration_since(last) < KICKUP_SPACING {
                return false;
            }
        }
        if let Some(q) = self.low.pop_front() {
            self.high.push_back(q);
        }
        self.last_kickup = Some(now);
        self.kickups += 1;
        true
    }

    /// The next entry to run: high priority first (after a possible kick-up).
    pub fn pop(&mut self, now: Instant, kickup_timer: Duration) -> Option<Queued<T>> {
        self.kickup(now, kickup_timer);
        self.high.pop_front().or_else(|| self.low.pop_front())
    }

    /// Entries queued.
    pub fn len(&self) -> usize {
        self.high.len() + self.low.len()
    }

    /// The time the oldest entry was queued.
    pub fn oldest(&self) -> Option<Instant> {
        match (self.high.front(), self.low.front()) {
            (Some(a), Some(b)) => Some(a.since.min(b.since)),
            (Some(a), None) => Some(a.since),
            (None, Some(b)) => Some(b.since),
            (None, None) => None,
        }
    }
}

/// What one worker thread is doing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Slot {
    /// The connection it runs work for.
    conn: Option<u32>,
    /// When the current work started.
    started: Option<Instant>,
    /// The wait it reported, if any.
    wait: Option<WaitType>,
    /// Declared stalled by the timer (no longer counted as active).
    stalled: bool,
    /// The statement's thread runs at a lowered priority ([`GroupState::demote_stalled`]).
    demoted: bool,
    /// The worker's OS thread id (0 = unknown); kept across statements.
    tid: i32,
}

/// Cumulative statistics of one thread group (INFORMATION_SCHEMA.TP_THREAD_GROUP_STATS).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupStats {
    /// Connections assigned to the group.
    pub connections_started: u64,
    /// Connections of the group that ended.
    pub connections_closed: u64,
    /// Units of work started (statements, plus connection setups).
    pub queries_executed: u64,
    /// Work that had to wait in a queue because the group was at its limit.
    pub queries_queued: u64,
    /// Worker threads started.
    pub threads_started: u64,
    /// Low-priority entries moved to the high-priority queue.
    pub prio_kickups: u64,
    /// Statements declared stalled.
    pub stalled_queries_executed: u64,
    /// Times a thread went idle as the group's consumer (the next to be used).
    pub become_consumer_thread: u64,
    /// Times a thread went idle as a reserve thread.
    pub become_reserve_thread: u64,
    /// Times a thread became the group's waiter (listener).
    pub become_waiting_thread: u64,
    /// Threads woken or started by the stall checker.
    pub wake_thread_stall_checker: u64,
    /// Reported waits, per [`WaitType`] (indexed by [`WaitType::index`]).
    pub waits: [u64; 11],
}

/// A thread group's scheduling state, under the group mutex.
#[derive(Debug)]
pub(crate) struct GroupState<T> {
    pub sched: Sched<T>,
    /// Work items executing that count against the limit (not waiting, not stalled).
    pub active: usize,
    /// Workers sleeping for work.
    pub idle: usize,
    /// Wake-ups handed to idle workers and not yet consumed.
    pub tokens: usize,
    /// Workers spawned and not yet running.
    pub starting: usize,
    /// Worker threads alive.
    pub threads: usize,
    pub slots: BTreeMap<u32, Slot>,
    pub stats: GroupStats,
    pub shutdown: bool,
    /// The worker polling the group's sockets, if any.
    pub listening: Option<u32>,
    /// The listener was interrupted to take queued work (counts as a pending worker).
    pub poked: bool,
}

impl<T> Default for GroupState<T> {
    fn default() -> Self {
        GroupState {
            sched: Sched::default(),
            active: 0,
            idle: 0,
            tokens: 0,
            starting: 0,
            threads: 0,
            slots: BTreeMap::new(),
            stats: GroupStats::default(),
            shutdown: false,
            listening: None,
            poked: false,
        }
    }
}

impl<T> GroupState<T> {
    /// Workers about to look at the queue.
    pub fn pending(&self) -> usize {
        self.tokens + self.starting + self.poked as usize
    }

    /// True when nobody polls the group's sockets and no worker is on its way (one should be
    /// woken or started to become the listener).
    pub fn needs_listener(&self) -> bool {
        self.listening.is_none() && self.pending() == 0 && !self.shutdown
    }

    /// True when queued work is not covered by workers already on their way and the group has
    /// room under `limit` active statements: another worker should be woken or started.
    pub fn needs_thread(&self, limit: usize) -> bool {
        self.sched.len() > self.pending() && self.active + self.pending() < limit
    }

    /// Queues work.
    pub fn push(&mut self, item: T, conn: u32, high: bool, now: Instant, limit: usize) {
        if self.active + self.pending() >= limit || self.sched.len() >= limit {
            self.stats.queries_queued += 1;
        }
        self.sched.push(item, conn, high, now);
    }

    /// Worker `no` takes the next entry if the group is under `limit` active statements.
    pub fn take(
        &mut self,
        no: u32,
        now: Instant,
        limit: usize,
        kickup: Duration,
    ) -> Option<Queued<T>> {
        if self.active >= limit {
            return None;
        }
        let q = self.sched.pop(now, kickup)?;
        self.active += 1;
        self.stats.queries_executed += 1;
        let slot = self.slots.entry(no).or_default();
        *slot = Slot {
            conn: Some(q.conn),
            started: Some(now),
            tid: slot.tid,
            ..Slot::default()
        };
        Some(q)
    }

    /// Whether worker `no`, done with a statement of its connection, may keep that connection
    /// and wait on its socket for the next command ([`LINGER`]) instead of parking it: only
    /// while the group has no more connections than statements it may run at once
    /// (`connections <= limit`, so no connection can be kept waiting by it), nothing is
    /// queued, and the worker's statement was not declared stalled or in a wait. When it may,
    /// the slot's start time moves to `now`, so the next statement is timed on its own.
    pub fn linger(&mut self, no: u32, connections: usize, limit: usize, now: Instant) -> bool {
        if connections > limit || self.sched.len() > 0 || self.shutdown {
            return false;
        }
        match self.slots.get_mut(&no) {
            Some(s) if s.started.is_some() && !s.stalled && s.wait.is_none() => {
                s.started = Some(now);
                true
            }
            _ => false,
        }
    }

    /// Worker `no` finished its entry; true if its thread was demoted for it (it must raise
    /// its priority again).
    pub fn finish(&mut self, no: u32) -> bool {
        let Some(s) = self.slots.get_mut(&no) else {
            return false;
        };
        if s.started.is_some() && !s.stalled && s.wait.is_none() {
            self.active = self.active.saturating_sub(1);
        }
        let demoted = s.demoted;
        *s = Slot {
            tid: s.tid,
            ..Slot::default()
        };
        demoted
    }

    /// Marks as demoted every stalled statement whose thread is known and not demoted yet, and
    /// returns those threads' ids: the caller lowers their priority (while it holds the
    /// group's lock, so a worker's [`GroupState::finish`] sees the mark once it is true).
    pub fn demote_stalled(&mut self) -> Vec<i32> {
        self.slots
            .values_mut()
            .filter(|s| s.stalled && !s.demoted && s.tid != 0)
            .map(|s| {
                s.demoted = true;
                s.tid
            })
            .collect()
    }

    /// Worker `no` reports that it blocks: it stops counting as active.
    pub fn wait_begin(&mut self, no: u32, t: WaitType) {
        let Some(s) = self.slots.get_mut(&no) else {
            return;
        };
        if s.started.is_none() || s.wait.is_some() {
            return;
        }
        s.wait = Some(t);
        self.stats.waits[t.index()] += 1;
        if !s.stalled {
            self.active = self.active.saturating_sub(1);
        }
    }

    /// Worker `no`'s wait ended: it counts as active again (possibly over the limit for a while).
    pub fn wait_end(&mut self, no: u32) {
        let Some(s) = self.slots.get_mut(&no) else {
            return;
        };
        if s.wait.take().is_some() && !s.stalled {
            self.active += 1;
        }
    }

    /// Declares stalled every active entry running for `limit` or longer; returns how many.
    pub fn check_stalls(&mut self, now: Instant, limit: Duration) -> usize {
        let mut n = 0;
        for s in self.slots.values_mut() {
            let Some(started) = s.started else { continue };
            if s.stalled || s.wait.is_some() || now.saturating_duration_since(started) < limit {
                continue;
            }
            s.stalled = true;
            n += 1;
        }
        self.active = self.active.saturating_sub(n);
        self.stats.stalled_queries_executed += n as u64;
        n
    }

    /// Counts of executing workers: (active, waiting, stalled).
    fn executing(&self) -> (usize, usize, usize) {
        let mut r = (0, 0, 0);
        for s in self.slots.values().filter(|s| s.started.is_some()) {
            if s.stalled {
                r.2 += 1;
            } else if s.wait.is_some() {
                r.1 += 1;
            } else {
                r.0 += 1;
            }
        }
        r
    }
}

// ------------------------------------------------------------------------------------------
// Snapshots (INFORMATION_SCHEMA)

/// The state of one thread group (INFORMATION_SCHEMA.TP_THREAD_GROUP_STATE).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupSnapshot {
    /// Group number (0-based).
    pub id: usize,
    /// Idle threads that are the next to be used (0 or 1).
    pub consumer_threads: u64,
    /// Other idle threads.
    pub reserve_threads: u64,
    /// Connections assigned to the group now.
    pub connection_count: u64,
    /// Queued low-priority entries.
    pub queued_queries: u64,
    /// Queued high-priority entries (connections inside a transaction).
    pub queued_trans: u64,
    /// thread_pool_stall_limit (10 ms units).
    pub stall_limit: u64,
    /// thread_pool_prio_kickup_timer (ms).
    pub prio_kickup_timer: u64,
    /// Worker threads (busy and idle).
    pub thread_count: u64,
    /// Statements executing and counted as active.
    pub active_thread_count: u64,
    /// Statements executing and declared stalled.
    pub stalled_thread_count: u64,
    /// Statements executing and blocked in a reported wait.
    pub waiting_thread_count: u64,
    /// Thread number of the group's listener (waiter) thread.
    pub waiting_thread_number: u64,
    /// Microseconds the oldest queued entry has waited (0 if none).
    pub oldest_queued: u64,
    /// The largest thread number in the group.
    pub max_thread_ids_in_group: u64,
    /// Cumulative statistics.
    pub stats: GroupStats,
}

/// One pool thread (INFORMATION_SCHEMA.TP_THREAD_STATE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSnapshot {
    /// Group number.
    pub group: usize,
    /// Thread number (unique in the pool).
    pub thread_no: u64,
    /// 10 ms slots the current work has used.
    pub process_count: u64,
    /// The reported wait, if blocked.
    pub wait_type: Option<WaitType>,
    /// `active`, `waiting`, `stalled`, `idle` or `listener`.
    pub state: &'static str,
    /// The connection whose work it runs.
    pub conn_id: Option<u32>,
}

/// The whole pool's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolSnapshot {
    /// One entry per group.
    pub groups: Vec<GroupSnapshot>,
    /// One entry per thread (workers and listeners).
    pub threads: Vec<ThreadSnapshot>,
}

// ------------------------------------------------------------------------------------------
// Runtime

/// Dynamic parameters, refreshed from [`Backend::tuning`] by the timer.
struct Params {
    oversubscribe: AtomicUsize,
    stall_ms: AtomicU64,
    kickup_ms: AtomicU64,
    max_unused: AtomicUsize,
    stall_nice: AtomicI32,
    max_threads: usize,
}

impl Params {
    fn refresh(&self, t: &crate::backend::Tuning) {
        self.oversubscribe.store(t.oversubscribe, Ordering::Relaxed);
        self.stall_ms
            .store(t.stall_limit.as_millis().max(10) as u64, Ordering::Relaxed);
        self.kickup_ms
            .store(t.prio_kickup.as_millis() as u64, Ordering::Relaxed);
        self.max_unused
            .store(t.max_unused_threads, Ordering::Relaxed);
        self.stall_nice.store(t.stall_nice, Ordering::Relaxed);
    }
    fn limit(&self) -> usize {
        1 + self.oversubscribe.load(Ordering::Relaxed)
    }
    fn stall(&self) -> Duration {
        Duration::from_millis(self.stall_ms.load(Ordering::Relaxed))
    }
    fn kickup(&self) -> Duration {
        Duration::from_millis(self.kickup_ms.load(Ordering::Relaxed))
    }
}

/// Where a pooled connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Greeting sent: the client's handshake response is awaited.
    Handshake,
    /// Authenticated: commands.
    Command,
}

/// Connections of one group: now and cumulative.
#[derive(Default)]
struct ConnCounters {
    current: AtomicU64,
    started: AtomicU64,
    closed: AtomicU64,
}

/// A pooled connection, owned by exactly one of: a queue, a worker, the parked map.
struct Task<B: Backend> {
    conn: Connection<B, Socket>,
    _guard: ActiveGuard<B>,
    phase: Phase,
    /// Registered with the group's poller (must be deleted before the socket closes).
    registered: bool,
    /// Priority of its next statement.
    high: bool,
    /// Its last statement ran past `thread_pool_stall_limit`: the next one starts at the
    /// lowered priority (a report's statements, see [`priority`]).
    long: bool,
    /// Parked: when it times out (wait_timeout, or connect_timeout before authentication).
    deadline: Instant,
    poller: Arc<Poller>,
    counters: Arc<ConnCounters>,
    /// Connections of the whole pool.
    pool_conns: Arc<AtomicUsize>,
}

impl<B: Backend> Drop for Task<B> {
    fn drop(&mut self) {
        if self.registered {
            let _ = self.poller.delete(self.conn.stream());
        }
        use crate::conn::Transport;
        self.conn.stream().close();
        self.counters.current.fetch_sub(1, Ordering::Relaxed);
        self.counters.closed.fetch_add(1, Ordering::Relaxed);
        self.pool_conns.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One thread group.
struct Group<B: Backend> {
    id: usize,
    state: Mutex<GroupState<Box<Task<B>>>>,
    cv: Condvar,
    poller: Arc<Poller>,
    /// Idle connections waiting for their socket, by connection id (the poller key).
    parked: Mutex<HashMap<u32, Box<Task<B>>>>,
    counters: Arc<ConnCounters>,
    /// Connections of the whole pool (all groups).
    pool_conns: Arc<AtomicUsize>,
    /// Outside a transaction a connection lingers only in a pool of at most
    /// [`LINGER_AUTOCOMMIT_GROUPS`] groups (see [`LINGER`]).
    linger_autocommit: bool,
    params: Arc<Params>,
    thread_no: Arc<AtomicU32>,
    backend: Arc<B>,
    registry: Arc<ConnectionRegistry>,
    stopping: AtomicBool,
    /// When the listener next looks for connections past their deadline.
    next_scan: Mutex<Instant>,
}

/// Reports a worker's waits to its group.
struct WorkerWaits<B: Backend> {
    group: Arc<Group<B>>,
    no: u32,
}

thread_local! {
    /// The worker's time spent in reported waits (row locks, disk reads, fsyncs, sleeps…) and
    /// the start of the current one: a statement's own running time leaves them out.
    static WAITED: std::cell::Cell<(Duration, Option<Instant>)> =
        const { std::cell::Cell::new((Duration::ZERO, None)) };
}

/// The calling worker's total time in reported waits so far.
fn waited() -> Duration {
    WAITED.with(|w| w.get().0)
}

impl<B: Backend> WaitHandler for WorkerWaits<B> {
    fn wait_begin(&self, t: WaitType) {
        WAITED.with(|w| w.set((w.get().0, Some(Instant::now()))));
        let mut st = self.group.state.lock();
        st.wait_begin(self.no, t);
        self.group.wake(&mut st, false);
        // Statements may arrive while this one waits: someone must watch the sockets.
        self.group.ensure_listener(&mut st);
    }
    fn wait_end(&self) {
        WAITED.with(|w| {
            let (total, since) = w.get();
            w.set((total + since.map_or(Duration::ZERO, |t| t.elapsed()), None));
        });
        self.group.state.lock().wait_end(self.no);
    }
}

impl<B: Backend> Group<B> {
    /// Wakes idle workers or starts new ones while queued work has room to run.
    fn wake(self: &Arc<Self>, st: &mut GroupState<Box<Task<B>>>, by_stall_checker: bool) {
        let limit = self.params.limit();
        while st.needs_thread(limit) {
            if st.idle > st.tokens {
                st.tokens += 1;
                self.cv.notify_one();
            } else if st.listening.is_some() && !st.poked {
                st.poked = true;
                let _ = self.poller.notify();
            } else if st.threads < self.params.max_threads {
                if !self.spawn_worker(st) {
                    break;
                }
            } else {
                break;
            }
            if by_stall_checker {
                st.stats.wake_thread_stall_checker += 1;
            }
        }
    }

    /// Wakes or starts a worker to become the listener if the role is vacant.
    fn ensure_listener(self: &Arc<Self>, st: &mut GroupState<Box<Task<B>>>) {
        if !st.needs_listener() {
            return;
        }
        if st.idle > st.tokens {
            st.tokens += 1;
            self.cv.notify_one();
        } else if st.threads < self.params.max_threads {
            self.spawn_worker(st);
        }
    }

    fn spawn_worker(self: &Arc<Self>, st: &mut GroupState<Box<Task<B>>>) -> bool {
        let no = self.thread_no.fetch_add(1, Ordering::Relaxed);
        st.starting += 1;
        st.threads += 1;
        let g = self.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("tp{}-{no}", self.id))
            // room for deeply nested statements (parser, binder and evaluator recurse)
            .stack_size(8 << 20)
            .spawn(move || g.worker(no));
        match spawned {
            Ok(_) => {
                st.stats.threads_started += 1;
                self.registry.thread_created();
                true
            }
            Err(e) => {
                st.starting -= 1;
                st.threads -= 1;
                tracing::error!("thread pool: cannot start a worker thread: {e}");
                false
            }
        }
    }

    fn worker(self: Arc<Self>, no: u32) {
        common::wait::set_handler(Some(Arc::new(WorkerWaits {
            group: self.clone(),
            no,
        })));
        let mut events = Events::new();
        let mut st = self.state.lock();
        st.starting -= 1;
        st.slots.insert(
            no,
            Slot {
                tid: rustix::thread::gettid().as_raw_nonzero().get(),
                ..Slot::default()
            },
        );
        loop {
            if st.shutdown {
                break;
            }
            let now = Instant::now();
            if let Some(q) = st.take(no, now, self.params.limit(), self.params.kickup()) {
                // No other worker is woken for the rest of the queue: this one comes back to it
                // when the statement ends, a wait or a stall brings another (`wake`), and the
                // listener takes what arrives meanwhile while the group has room. Waking one per
                // queued entry (up to 1 + oversubscribe running) cost a context switch per
                // statement and 10-25 % of point-select throughput at 16 connections on 8 cores
                // (docs/benchmarks/2026-11-27-many-cores-pool.md). The listener role may stay
                // vacant while this runs (as in MariaDB's pool: waking a thread just to listen
                // costs more than the short delay); the next worker out of work, a wait, or the
                // timer fills it.
                drop(st);
                let lowered = self.run(q.item, no);
                st = self.state.lock();
                if (st.finish(no) | lowered) && !priority::restore() {
                    // Without CAP_SYS_NICE a thread cannot raise its priority again: this one
                    // leaves, and the group starts a new one when it needs it.
                    self.wake(&mut st, false);
                    self.ensure_listener(&mut st);
                    break;
                }
                continue;
            }
            if st.listening.is_none() {
                // Become the listener: wait for sockets, queue what is ready, then run the
                // first entry ourselves (next iteration) if the group has room.
                st.listening = Some(no);
                st.stats.become_waiting_thread += 1;
                drop(st);
                let ready = self.listen_once(&mut events);
                st = self.state.lock();
                st.listening = None;
                st.poked = false;
                let now = Instant::now();
                let limit = self.params.limit();
                for t in ready {
                    let (id, high) = (t.conn.conn_id(), t.high);
                    st.push(t, id, high, now, limit);
                }
                continue;
            }
            let max_unused = self.params.max_unused.load(Ordering::Relaxed);
            if max_unused > 0 && st.idle >= max_unused {
                break;
            }
            if st.idle == 0 {
                st.stats.become_consumer_thread += 1;
            } else {
                st.stats.become_reserve_thread += 1;
            }
            st.idle += 1;
            while st.tokens == 0 && !st.shutdown {
                self.cv.wait(&mut st);
            }
            if st.tokens > 0 {
                st.tokens -= 1;
            }
            st.idle -= 1;
        }
        st.slots.remove(&no);
        st.threads -= 1;
        drop(st);
        common::wait::set_handler(None);
    }

    /// Runs one step of a connection's life, then parks it again (or lets it drop = close).
    /// True when it lowered the worker's priority for a report's statement (see [`priority`]):
    /// the worker restores it.
    fn run(self: &Arc<Self>, mut task: Box<Task<B>>, no: u32) -> bool {
        let mut lowered = false;
        match task.phase {
            Phase::Handshake => match task.conn.finish_handshake() {
                Ok(true) => {
                    task.phase = Phase::Command;
                    task.high = task.conn.high_priority();
                    let wait = task.conn.idle_timeout();
                    self.park(task, wait);
                }
                _ => self.backend.connect_failed(),
            },
            Phase::Command => loop {
                let Some(payload) = task.conn.read_command() else {
                    return lowered;
                };
                let nice = self.params.stall_nice.load(Ordering::Relaxed);
                if task.long && nice > 0 && !lowered {
                    lowered = true;
                    priority::lower(rustix::thread::gettid().as_raw_nonzero().get(), nice);
                }
                let (started, waited_before) = (Instant::now(), waited());
                let flow = task.conn.handle_command(&payload);
                // Running time, not waits: a statement that waited on a row lock is no report.
                let ran = started.elapsed().saturating_sub(waited() - waited_before);
                task.long = ran >= self.params.stall();
                let flushed = task.conn.flush();
                if let (Ok(Flow::Detach), Ok(())) = (&flow, &flushed) {
                    detach(task);
                    return lowered;
                }
                if !matches!((flow, flushed), (Ok(Flow::Continue), Ok(()))) {
                    return lowered;
                }
                // A pipelined command already read ahead or decrypted above the socket would
                // not wake the poller: run it now.
                if task.conn.has_buffered_input() {
                    continue;
                }
                let t = task.conn.apply_timeouts();
                if self.linger(&mut task, no) {
                    continue;
                }
                task.high = task.conn.high_priority();
                self.park(task, t.wait);
                return lowered;
            },
        }
        lowered
    }

    /// Keeps the connection on worker `no` for up to [`LINGER`] while the group allows it;
    /// true when its next command arrived in that time.
    fn linger(self: &Arc<Self>, task: &mut Task<B>, no: u32) -> bool {
        let connections = self.counters.current.load(Ordering::Relaxed) as usize;
        let limit = self.params.limit();
        if connections > limit
            || !(self.linger_autocommit || task.conn.in_transaction())
            || self.pool_conns.load(Ordering::Relaxed) < 2
            || self.stopping.load(Ordering::Relaxed)
        {
            return false;
        }
        {
            let mut st = self.state.lock();
            if !st.linger(no, connections, limit, Instant::now()) {
                return false;
            }
            // This worker will not come back to take the listener role: the group's parked
            // connections still need someone polling their sockets (else they would wait for
            // the timer's next tick).
            self.ensure_listener(&mut st);
        }
        task.conn.await_command(LINGER)
    }

    /// Hands a connection to the listener until its socket is readable or `timeout` passes.
    fn park(&self, mut task: Box<Task<B>>, timeout: Duration) {
        task.deadline = Instant::now() + timeout.max(Duration::from_secs(1));
        let id = task.conn.conn_id();
        let interest = Event::readable(id as usize);
        // The parked map's lock is held while arming, so the listener cannot see the event
        // before the task is in the map.
        let mut parked = self.parked.lock();
        let armed = if task.registered {
            self.poller.modify(task.conn.stream(), interest)
        } else {
            // SAFETY: the descriptor stays open while registered: `Task::drop` deletes it from
            // this poller before the socket is closed.
            let r = unsafe { self.poller.add(task.conn.stream().as_raw_fd(), interest) };
            task.registered = r.is_ok();
            r
        };
        match armed {
            Ok(()) => {
                parked.insert(id, task);
            }
            Err(e) => {
                drop(parked);
                tracing::warn!(conn = id, "thread pool: cannot watch the socket: {e}");
            }
        }
    }

    /// One turn of the listener: waits (until the next deadline scan at most) for readable
    /// sockets of parked connections and returns their tasks; closes connections past their
    /// deadline when a scan is due.
    fn listen_once(&self, events: &mut Events) -> Vec<Box<Task<B>>> {
        events.clear();
        let next_scan = *self.next_scan.lock();
        let timeout = next_scan.saturating_duration_since(Instant::now());
        if let Err(e) = self.poller.wait(events, Some(timeout)) {
            if e.kind() != std::io::ErrorKind::Interrupted {
                tracing::warn!("thread pool: poll failed: {e}");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        if self.stopping.load(Ordering::SeqCst) {
            return vec![];
        }
        let ready = if events.is_empty() {
            vec![]
        } else {
            let mut parked = self.parked.lock();
            events
                .iter()
                .filter_map(|ev| parked.remove(&(ev.key as u32)))
                .collect()
        };
        let now = Instant::now();
        if now >= next_scan {
            *self.next_scan.lock() = now + EXPIRY_SCAN;
            self.expire(now);
        }
        ready
    }

    fn expire(&self, now: Instant) {
        let expired: Vec<Box<Task<B>>> = {
            let mut parked = self.parked.lock();
            let ids: Vec<u32> = parked
                .iter()
                .filter(|(_, t)| t.deadline <= now)
                .map(|(id, _)| *id)
                .collect();
            ids.iter().filter_map(|id| parked.remove(id)).collect()
        };
        for mut t in expired {
            if t.phase == Phase::Command {
                t.conn.send_idle_timeout();
            } else {
                self.backend.connect_failed();
            }
        }
    }

    fn snapshot(&self, now: Instant) -> (GroupSnapshot, Vec<ThreadSnapshot>) {
        let st = self.state.lock();
        let (active, waiting, stalled) = st.executing();
        let consumer = (st.idle > 0) as u64;
        let mut stats = st.stats.clone();
        stats.prio_kickups = st.sched.kickups;
        stats.connections_started = self.counters.started.load(Ordering::Relaxed);
        stats.connections_closed = self.counters.closed.load(Ordering::Relaxed);
        let mut threads = Vec::new();
        for (no, s) in &st.slots {
            let state = match s.started {
                None if st.listening == Some(*no) => "listener",
                None => "idle",
                Some(_) if s.stalled => "stalled",
                Some(_) if s.wait.is_some() => "waiting",
                Some(_) => "active",
            };
            threads.push(ThreadSnapshot {
                group: self.id,
                thread_no: *no as u64,
                process_count: s
                    .started
                    .map(|t| (now.saturating_duration_since(t).as_millis() / 10) as u64)
                    .unwrap_or(0),
                wait_type: s.wait,
                state,
                conn_id: s.conn,
            });
        }
        let g = GroupSnapshot {
            id: self.id,
            consumer_threads: consumer,
            reserve_threads: (st.idle as u64).saturating_sub(consumer),
            connection_count: self.counters.current.load(Ordering::Relaxed),
            queued_queries: st.sched.low.len() as u64,
            queued_trans: st.sched.high.len() as u64,
            stall_limit: self.params.stall().as_millis() as u64 / 10,
            prio_kickup_timer: self.params.kickup().as_millis() as u64,
            thread_count: st.threads as u64,
            active_thread_count: active as u64,
            stalled_thread_count: stalled as u64,
            waiting_thread_count: waiting as u64,
            waiting_thread_number: st.listening.unwrap_or(0) as u64,
            oldest_queued: st
                .sched
                .oldest()
                .map(|t| now.saturating_duration_since(t).as_micros() as u64)
                .unwrap_or(0),
            max_thread_ids_in_group: st.slots.keys().copied().max().unwrap_or(0) as u64,
            stats,
        };
        (g, threads)
    }
}

/// The thread pool: thread groups, their listeners and workers, and the timer.
pub struct Pool<B: Backend> {
    groups: Vec<Arc<Group<B>>>,
    next: AtomicUsize,
    params: Arc<Params>,
    backend: Arc<B>,
    stopping: AtomicBool,
    timer: Mutex<Option<JoinHandle<()>>>,
}

impl<B: Backend> Pool<B> {
    /// Starts `cfg.size` groups (a listener and one worker each) and the timer thread.
    pub(crate) fn start(
        cfg: PoolConfig,
        backend: Arc<B>,
        registry: Arc<ConnectionRegistry>,
    ) -> std::io::Result<Arc<Pool<B>>> {
        let params = Arc::new(Params {
            oversubscribe: AtomicUsize::new(0),
            stall_ms: AtomicU64::new(60),
            kickup_ms: AtomicU64::new(1000),
            max_unused: AtomicUsize::new(0),
            stall_nice: AtomicI32::new(0),
            max_threads: cfg.max_threads.max(1),
        });
        params.refresh(&backend.tuning());
        let thread_no = Arc::new(AtomicU32::new(1));
        let pool_conns = Arc::new(AtomicUsize::new(0));
        let mut groups = Vec::new();
        for id in 0..cfg.size.max(1) {
            let g = Arc::new(Group {
                id,
                state: Mutex::new(GroupState::default()),
                cv: Condvar::new(),
                poller: Arc::new(Poller::new()?),
                parked: Mutex::new(HashMap::new()),
                counters: Arc::new(ConnCounters::default()),
                pool_conns: pool_conns.clone(),
                linger_autocommit: cfg.size.max(1) <= LINGER_AUTOCOMMIT_GROUPS,
                params: params.clone(),
                thread_no: thread_no.clone(),
                backend: backend.clone(),
                registry: registry.clone(),
                stopping: AtomicBool::new(false),
                next_scan: Mutex::new(Instant::now() + EXPIRY_SCAN),
            });
            {
                let mut st = g.state.lock();
                g.spawn_worker(&mut st);
            }
            groups.push(g);
        }
        let pool = Arc::new(Pool {
            groups,
            next: AtomicUsize::new(0),
            params,
            backend,
            stopping: AtomicBool::new(false),
            timer: Mutex::new(None),
        });
        let weak = Arc::downgrade(&pool);
        let timer = std::thread::Builder::new()
            .name("tp-timer".into())
            .spawn(move || timer_loop(weak))?;
        *pool.timer.lock() = Some(timer);
        Ok(pool)
    }

    /// Takes a newly accepted connection (on the accept thread): assigns its group
    /// round-robin, sends the greeting without blocking (a short packet into the new socket's
    /// empty buffer) and parks the connection until the client answers.
    pub(crate) fn add(&self, conn: Connection<B, Socket>, guard: ActiveGuard<B>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed) % self.groups.len();
        let g = &self.groups[n];
        g.counters.current.fetch_add(1, Ordering::Relaxed);
        g.counters.started.fetch_add(1, Ordering::Relaxed);
        g.pool_conns.fetch_add(1, Ordering::Relaxed);
        let mut task = Box::new(Task {
            conn,
            _guard: guard,
            phase: Phase::Handshake,
            registered: false,
            high: false,
            long: false,
            deadline: Instant::now(),
            poller: g.poller.clone(),
            counters: g.counters.clone(),
            pool_conns: g.pool_conns.clone(),
        });
        let _ = task.conn.stream().set_nonblocking(true);
        let sent = task.conn.send_greeting();
        let _ = task.conn.stream().set_nonblocking(false);
        match sent {
            Ok(connect_timeout) => g.park(task, connect_timeout),
            Err(e) => {
                tracing::debug!("cannot send the greeting: {e}");
                self.backend.connect_failed();
            }
        }
    }

    /// The state of every group and thread.
    pub fn snapshot(&self) -> PoolSnapshot {
        let now = Instant::now();
        let mut out = PoolSnapshot::default();
        for g in &self.groups {
            let (gs, ts) = g.snapshot(now);
            out.groups.push(gs);
            out.threads.extend(ts);
        }
        out
    }

    /// Stops the listeners, idle workers and the timer (busy workers end after their work).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        for g in &self.groups {
            g.stopping.store(true, Ordering::SeqCst);
            g.state.lock().shutdown = true;
            g.cv.notify_all();
            let _ = g.poller.notify();
            // Close whatever is still parked.
            let rest: Vec<_> = g.parked.lock().drain().map(|(_, t)| t).collect();
            drop(rest);
        }
        if let Some(t) = self.timer.lock().take() {
            let _ = t.join();
        }
    }

    /// One timer tick: declares stalls, kicks up waiting low-priority work, wakes workers.
    fn tick(&self, now: Instant) {
        let stall = self.params.stall();
        let kickup = self.params.kickup();
        for g in &self.groups {
            let mut st = g.state.lock();
            let stalled = st.check_stalls(now, stall);
            let nice = self.params.stall_nice.load(Ordering::Relaxed);
            if stalled > 0 && nice > 0 {
                for tid in st.demote_stalled() {
                    priority::lower(tid, nice);
                }
            }
            st.sched.kickup(now, kickup);
            g.wake(&mut st, stalled > 0);
            g.ensure_listener(&mut st);
        }
    }
}

/// Thread priorities for statements declared stalled (`thread_pool_stall_nice`).
///
/// A statement that runs past `thread_pool_stall_limit` (a report, a big scan) already stops
/// counting against its group's limit, so the group starts another worker for the short
/// statements queued behind it; on a machine with few cores they then compete for the CPU with
/// it. Lowering the long statement's thread priority (Linux: `setpriority` on the thread id;
/// nice 10 weighs about a tenth of nice 0) leaves the short statements most of the CPU while
/// both run, and costs the long one nothing when the CPU is otherwise idle. A report runs
/// long statements one after another: a connection whose last statement ran past the limit
/// (its running time, leaving out reported waits) starts its next one lowered, instead of
/// spending the first stall limit of each at full priority (`strata-bench run mvcc`, a 0.27 s
/// `SELECT AVG(k)` repeated against 16 updaters).
/// This is Strata's own; MySQL's and MariaDB's pools do not change priorities.
mod priority {
    use rustix::process::{setpriority_process, Pid};

    /// Lowers thread `tid` to `nice` (best effort: a failure leaves it as it is).
    pub(super) fn lower(tid: i32, nice: i32) {
        if let Some(pid) = Pid::from_raw(tid) {
            if let Err(e) = setpriority_process(Some(pid), nice) {
                tracing::debug!("thread pool: cannot lower thread {tid} to nice {nice}: {e}");
            }
        }
    }

    /// Puts the calling thread back to nice 0; false when it may not (raising a priority needs
    /// CAP_SYS_NICE or a large enough RLIMIT_NICE).
    pub(super) fn restore() -> bool {
        setpriority_process(Some(rustix::thread::gettid()), 0).is_ok()
    }
}

/// Moves a connection whose command runs until the client goes (a binlog dump,
/// [`Flow::Detach`]) to a thread of its own, so it never holds a worker of its group; the
/// connection closes when the thread ends (the task is dropped there).
fn detach<B: Backend>(mut task: Box<Task<B>>) {
    let id = task.conn.conn_id();
    let spawned = std::thread::Builder::new()
        .name(format!("strata-dump-{id}"))
        .spawn(move || task.conn.run_detached());
    if let Err(e) = spawned {
        tracing::error!(conn = id, "cannot start a binlog dump thread: {e}");
    }
}

fn timer_loop<B: Backend>(pool: std::sync::Weak<Pool<B>>) {
    let mut ticks: u64 = 0;
    loop {
        std::thread::sleep(TICK);
        let Some(p) = pool.upgrade() else { return };
        if p.stopping.load(Ordering::SeqCst) {
            return;
        }
        ticks += 1;
        if ticks == 10 {
            ticks = 0;
            p.params.refresh(&p.backend.tuning());
        }
        p.tick(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    const KICK: Duration = Duration::from_secs(1);

    #[test]
    fn high_priority_first_then_fifo() {
        let t0 = Instant::now();
        let mut s = Sched::default();
        s.push("low1", 1, false, t0);
        s.push("low2", 2, false, t0);
        s.push("trx", 3, true, t0 + ms(5));
        let order: Vec<_> = std::iter::from_fn(|| s.pop(t0 + ms(6), KICK))
            .map(|q| q.item)
            .collect();
        assert_eq!(order, vec!["trx", "low1", "low2"]);
        assert_eq!(s.kickups, 0);
    }

    #[test]
    fn kickup_after_timer_at_most_one_per_10ms() {
        let t0 = Instant::now();
        let mut s = Sched::default();
        for i in 0..3 {
            s.push(i, i, false, t0);
        }
        s.push(100, 100, true, t0 + ms(900));
        // Not yet: queued 999 ms.
        assert!(!s.kickup(t0 + ms(999), KICK));
        // After the timer: one moves, the next must wait 10 ms.
        assert!(s.kickup(t0 + ms(1000), KICK));
        assert!(!s.kickup(t0 + ms(1009), KICK));
        assert!(s.kickup(t0 + ms(1010), KICK));
        assert_eq!(s.kickups, 2);
        // The kicked-up entries run after the high-priority one queued before them.
        let order: Vec<_> = std::iter::from_fn(|| s.pop(t0 + ms(1011), KICK))
            .map(|q| q.item)
            .collect();
        assert_eq!(order, vec![100, 0, 1, 2]);
    }

    #[test]
    fn oldest_queued() {
        let t0 = Instant::now();
        let mut s = Sched::default();
        assert_eq!(s.oldest(), None);
        s.push(1, 1, true, t0 + ms(5));
        s.push(2, 2, false, t0 + ms(2));
        assert_eq!(s.oldest(), Some(t0 + ms(2)));
    }

    fn group() -> GroupState<u32> {
        let mut g = GroupState::default();
        for no in 1..=3 {
            g.slots.insert(no, Slot::default());
        }
        g
    }

    #[test]
    fn limit_blocks_take_until_finish() {
        let t0 = Instant::now();
        let mut g = group();
        g.push(10, 10, false, t0, 1);
        g.push(11, 11, false, t0, 1);
        assert_eq!(g.take(1, t0, 1, KICK).map(|q| q.item), Some(10));
        assert_eq!(g.active, 1);
        assert!(
            g.take(2, t0, 1, KICK).is_none(),
            "one active statement per group"
        );
        assert!(!g.needs_thread(1));
        // With oversubscribe 1 a second may run.
        assert!(g.needs_thread(2));
        g.finish(1);
        assert_eq!(g.active, 0);
        assert_eq!(g.take(2, t0, 1, KICK).map(|q| q.item), Some(11));
        assert_eq!(g.stats.queries_executed, 2);
    }

    #[test]
    fn wait_frees_the_slot_and_end_takes_it_back() {
        let t0 = Instant::now();
        let mut g = group();
        g.push(10, 10, true, t0, 1);
        g.push(11, 11, false, t0, 1);
        g.take(1, t0, 1, KICK).unwrap();
        g.wait_begin(1, WaitType::RowLock);
        assert_eq!(g.active, 0);
        assert!(g.needs_thread(1), "a blocked statement lets another start");
        g.take(2, t0, 1, KICK).unwrap();
        g.wait_end(1);
        assert_eq!(g.active, 2, "over the limit until one finishes");
        g.finish(2);
        g.finish(1);
        assert_eq!(g.active, 0);
        assert_eq!(g.stats.waits[WaitType::RowLock.index()], 1);
        // A wait outside any work is ignored.
        g.wait_begin(3, WaitType::Sleep);
        assert_eq!(g.stats.waits[WaitType::Sleep.index()], 0);
    }

    #[test]
    fn a_stalled_statement_is_demoted_once_and_its_worker_told_at_the_end() {
        let t0 = Instant::now();
        let mut g = group();
        g.slots.insert(
            1,
            Slot {
                tid: 4242,
                ..Slot::default()
            },
        );
        g.push(10, 10, false, t0, 1);
        g.take(1, t0, 1, KICK).unwrap();
        assert!(g.demote_stalled().is_empty(), "running, not stalled");
        assert_eq!(g.check_stalls(t0 + ms(60), ms(60)), 1);
        assert_eq!(g.demote_stalled(), vec![4242]);
        assert!(g.demote_stalled().is_empty(), "demoted once");
        assert!(g.finish(1), "the worker must raise its priority again");
        assert_eq!(g.slots[&1].tid, 4242, "the thread id stays with the worker");
        // the next statement starts undemoted; one that finishes in time is never demoted
        g.push(10, 10, false, t0, 1);
        g.take(1, t0 + ms(100), 1, KICK).unwrap();
        assert_eq!(g.check_stalls(t0 + ms(120), ms(60)), 0);
        assert!(g.demote_stalled().is_empty());
        assert!(!g.finish(1));
        // a thread whose id is unknown is not demoted
        g.slots.get_mut(&1).unwrap().tid = 0;
        g.push(10, 10, false, t0, 1);
        g.take(1, t0 + ms(200), 1, KICK).unwrap();
        assert_eq!(g.check_stalls(t0 + ms(300), ms(60)), 1);
        assert!(g.demote_stalled().is_empty());
        assert!(!g.finish(1));
    }

    #[test]
    fn stall_detection_frees_the_slot_once() {
        let t0 = Instant::now();
        let mut g = group();
        g.push(10, 10, false, t0, 1);
        g.push(11, 11, false, t0, 1);
        g.take(1, t0, 1, KICK).unwrap();
        assert_eq!(g.check_stalls(t0 + ms(59), ms(60)), 0);
        assert_eq!(g.check_stalls(t0 + ms(60), ms(60)), 1);
        assert_eq!(g.check_stalls(t0 + ms(200), ms(60)), 0, "stalled once");
        assert_eq!(g.active, 0);
        assert_eq!(g.stats.stalled_queries_executed, 1);
        assert!(g.needs_thread(1));
        g.take(2, t0 + ms(61), 1, KICK).unwrap();
        // A stalled statement that then waits and finishes does not disturb the count.
        g.wait_begin(1, WaitType::Sleep);
        g.wait_end(1);
        g.finish(1);
        assert_eq!(g.active, 1);
        // Waiting statements are never declared stalled.
        g.wait_begin(2, WaitType::Sleep);
        assert_eq!(g.check_stalls(t0 + ms(1000), ms(60)), 0);
        assert_eq!(g.executing(), (0, 1, 0));
    }

    #[test]
    fn linger_only_with_room_for_every_connection_and_nothing_queued() {
        let now = Instant::now();
        let mut g = group();
        g.push(1, 1, false, now, 4);
        let q = g.take(7, now, 4, ms(1000)).unwrap();
        assert_eq!(q.item, 1);
        // more connections than the group may run at once: park
        assert!(!g.linger(7, 5, 4, now));
        // something queued: park
        g.push(2, 2, false, now, 4);
        assert!(!g.linger(7, 2, 4, now));
        g.take(8, now, 4, ms(1000)).unwrap();
        // room for all and nothing queued: keep it, timed from now on
        let later = now + ms(30);
        assert!(g.linger(7, 2, 4, later));
        assert_eq!(g.slots[&7].started, Some(later));
        // a statement in a reported wait or declared stalled does not linger
        g.wait_begin(8, WaitType::RowLock);
        assert!(!g.linger(8, 2, 4, later));
        assert_eq!(g.check_stalls(later + ms(100), ms(50)), 1);
        assert!(!g.linger(7, 2, 4, later + ms(100)));
        // a worker without work does not linger
        assert!(!g.linger(9, 2, 4, later));
    }

    #[test]
    fn listener_role_vacancy() {
        let mut g = group();
        assert!(g.needs_listener());
        g.listening = Some(1);
        assert!(!g.needs_listener());
        g.listening = None;
        g.poked = true;
        assert_eq!(g.pending(), 1);
        assert!(!g.needs_listener(), "a worker is already on its way");
        g.poked = false;
        g.shutdown = true;
        assert!(!g.needs_listener());
    }

    #[test]
    fn pending_wakeups_are_not_doubled() {
        let t0 = Instant::now();
        let mut g = group();
        g.push(10, 10, false, t0, 4);
        g.push(11, 11, false, t0, 4);
        assert!(g.needs_thread(4));
        g.tokens = 1;
        assert!(g.needs_thread(4), "two queued, one worker on its way");
        g.starting = 1;
        assert!(!g.needs_thread(4), "both covered");
    }
}
