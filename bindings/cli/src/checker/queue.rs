//! The bounded queue between the relays and the checker thread: the events in order, their
//! bytes capped (`--max-queued-bytes`, with [`EVENT_COST`] per message) and their number capped
//! ([`CHANNEL_CAPACITY`]); a relay that finds no room waits before it reads on.
//!
//! One mutex holds the events and the room, so handing a message over is one uncontended lock,
//! and waking is separate from handing over: [`Queue::push_quiet`] queues an event without
//! waking the checker, and the relay calls [`Queue::wake`] once it has forwarded the message.
//! The wake-up (a system call, when the checker sleeps) and the checker's run then happen
//! after the peer already has its message, not between the read and the write. Having run out
//! of events, the checker first lingers for [`LINGER`] (a timed wait that a quiet push does not
//! cut short) and only then sleeps until woken: while messages keep coming, it takes them in
//! batches, at most [`LINGER`] late, instead of being woken (and competing with the relays and
//! the peers for the cores) once per message. The HTTP relay, which has no single moment of
//! "forwarded", pushes with [`Wake::IfAsleep`]: it wakes a sleeping checker but leaves a
//! lingering one its linger. Every other push wakes it at once, and a relay that must wait for
//! room wakes it first, so nothing waits on a message never announced.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::proxy::metrics::{Limit, Metrics};

/// Events waiting for the checker at most (besides their bytes).
pub(super) const CHANNEL_CAPACITY: usize = 4096;
/// What one message costs besides its bytes (its event and bookkeeping).
pub(super) const EVENT_COST: usize = 64;
/// How long the checker waits for quietly pushed events before it sleeps until woken: the
/// most a relayed message waits to be checked while the checker is idle.
pub(super) const LINGER: Duration = Duration::from_millis(1);

/// When a push wakes the checker.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Wake {
    /// At once, lingering or asleep.
    Now,
    /// Only when it sleeps: lingering, it takes the event within [`LINGER`]. Under steady
    /// traffic the checker then takes batches without a wake-up per message.
    IfAsleep,
    /// Not at all: the caller calls [`Queue::wake`] next.
    Later,
}

/// Whether a push of `wake` wakes a checker that is `idle`.
fn wakes(wake: Wake, idle: Idle) -> bool {
    match wake {
        Wake::Now => idle != Idle::Busy,
        Wake::IfAsleep => idle == Idle::Asleep,
        Wake::Later => false,
    }
}

/// What the checker is doing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Idle {
    /// Checking: it takes the next event without being woken.
    Busy,
    /// In its timed wait ([`LINGER`]): only a push that is not quiet wakes it.
    Lingering,
    /// Waiting until woken.
    Asleep,
}

pub(super) struct Queue<E> {
    state: Mutex<Room<E>>,
    /// Relays waiting for room.
    freed: Condvar,
    /// The checker waiting for an event.
    arrived: Condvar,
    cap: usize,
    /// `--metrics`: the queue's gauges, and waits for room counted as limits hit.
    metrics: Option<Arc<Metrics>>,
}

struct Room<E> {
    events: VecDeque<E>,
    /// Bytes taken by the queued and unchecked messages.
    used: usize,
    /// Messages taken and not given back.
    messages: usize,
    /// Relays waiting for room: only then does freeing room wake anyone (a notify is a system
    /// call even when nobody waits, and room is freed after every message).
    waiting: usize,
    idle: Idle,
    /// Handles that may still push ([`Queue::attach`], [`Queue::detach`]): at none, the
    /// checker stops waiting.
    senders: usize,
    /// The checker is gone: nothing waits any more, and pushes are dropped.
    closed: bool,
}

impl<E> Queue<E> {
    /// `cap`: the bytes the queued messages may hold.
    pub(super) fn new(cap: usize, metrics: Option<Arc<Metrics>>) -> Queue<E> {
        let room = Room {
            events: VecDeque::new(),
            used: 0,
            messages: 0,
            waiting: 0,
            idle: Idle::Busy,
            senders: 0,
            closed: false,
        };
        Queue { state: Mutex::new(room), freed: Condvar::new(), arrived: Condvar::new(), cap, metrics }
    }

    fn lock(&self) -> MutexGuard<'_, Room<E>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One more handle that may push.
    pub(super) fn attach(&self) {
        self.lock().senders += 1;
    }

    /// A handle is gone; with the last, a waiting checker stops waiting.
    pub(super) fn detach(&self) {
        let mut room = self.lock();
        room.senders -= 1;
        if room.senders == 0 {
            drop(room);
            self.arrived.notify_all();
        }
    }

    /// Waits until a message of `bytes` fits (its share of the cap, `None` for an event that
    /// is no message) and one more event does, then queues `event(cost)`, its cost being what
    /// [`Queue::give_back`] returns once it is checked. Wakes the checker as `wake` says.
    /// `false`: the checker is gone, nothing was queued.
    pub(super) fn push(&self, bytes: Option<usize>, wake: Wake, event: impl FnOnce(usize) -> E) -> bool {
        let n = self.cost(bytes);
        let mut room = self.lock();
        let full = |r: &Room<E>| self.full(r, n);
        if full(&room) {
            if let Some(m) = self.metrics.as_ref().filter(|_| bytes.is_some()) {
                m.limit_hit(Limit::MaxQueuedBytes);
            }
            // What is queued was perhaps never announced: the checker must run to free room.
            self.arrived.notify_all();
        }
        while full(&room) {
            room.waiting += 1;
            room = self.freed.wait(room).unwrap_or_else(PoisonError::into_inner);
            room.waiting -= 1;
        }
        if room.closed {
            return false;
        }
        if bytes.is_some() {
            room.used += n;
            room.messages += 1;
            if let Some(m) = &self.metrics {
                m.queue(room.used, room.messages);
            }
        }
        room.events.push_back(event(n));
        let wake = wakes(wake, room.idle);
        drop(room);
        if wake {
            self.arrived.notify_one();
        }
        true
    }

    /// What a message of `bytes` takes of the cap (`None`: an event that is no message).
    fn cost(&self, bytes: Option<usize>) -> usize {
        bytes.map_or(0, |b| b.saturating_add(EVENT_COST).min(self.cap))
    }

    /// An event that takes `n` does not fit now: its push waits.
    fn full(&self, room: &Room<E>, n: usize) -> bool {
        !room.closed && (room.used + n > self.cap || room.events.len() >= CHANNEL_CAPACITY)
    }

    /// [`Queue::push`] without waking the checker: the caller calls [`Queue::wake`] next.
    pub(super) fn push_quiet(&self, bytes: usize, event: impl FnOnce(usize) -> E) -> bool {
        self.push(Some(bytes), Wake::Later, event)
    }

    /// Wakes the checker if it sleeps with events queued (lingering, it takes them soon).
    pub(super) fn wake(&self) {
        let room = self.lock();
        let wake = room.idle == Idle::Asleep && !room.events.is_empty();
        drop(room);
        if wake {
            self.arrived.notify_one();
        }
    }

    /// The next event, if one is queued.
    pub(super) fn try_pop(&self) -> Option<E> {
        self.lock().events.pop_front()
    }

    /// The next event, waiting for one (lingering first, then asleep); `None` once no handle
    /// may push any more.
    pub(super) fn pop(&self) -> Option<E> {
        let mut room = self.lock();
        let mut lingered = false;
        loop {
            if let Some(e) = room.events.pop_front() {
                return Some(e);
            }
            if room.senders == 0 {
                return None;
            }
            if lingered {
                room.idle = Idle::Asleep;
                room = self.arrived.wait(room).unwrap_or_else(PoisonError::into_inner);
            } else {
                room.idle = Idle::Lingering;
                room = self.arrived.wait_timeout(room, LINGER).unwrap_or_else(PoisonError::into_inner).0;
                lingered = true;
            }
            room.idle = Idle::Busy;
        }
    }

    /// A checked message's cost given back: a relay waiting for room may go on.
    pub(super) fn give_back(&self, n: usize) {
        let mut room = self.lock();
        room.used = room.used.saturating_sub(n);
        room.messages = room.messages.saturating_sub(1);
        if let Some(m) = &self.metrics {
            m.queue(room.used, room.messages);
        }
        let waiting = room.waiting > 0;
        drop(room);
        if waiting {
            self.freed.notify_all();
        }
    }

    /// No checker any more (it finished, or panicked): the relays stop waiting for room, and
    /// what is still queued is dropped.
    pub(super) fn close(&self) {
        let mut room = self.lock();
        room.closed = true;
        room.events.clear();
        drop(room);
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Who is woken: a busy checker never (it takes the next event anyway); a lingering one
    /// only by `Now` (an HTTP relay's `IfAsleep` leaves it its linger); a sleeping one by
    /// `Now` and `IfAsleep`; `Later` never.
    #[test]
    fn each_push_wakes_the_checker_as_its_kind_says() {
        use Idle::{Asleep, Busy, Lingering};
        let table = [
            (Wake::Now, [(Busy, false), (Lingering, true), (Asleep, true)]),
            (Wake::IfAsleep, [(Busy, false), (Lingering, false), (Asleep, true)]),
            (Wake::Later, [(Busy, false), (Lingering, false), (Asleep, false)]),
        ];
        for (wake, row) in table {
            for (idle, expected) in row {
                assert_eq!(wakes(wake, idle), expected, "{wake:?} while {idle:?}");
            }
        }
    }

    /// A quiet push is not announced until `wake`, the order is kept, the bytes and the number
    /// of events are capped, and a relay that must wait for room first wakes the checker.
    #[test]
    fn quiet_pushes_keep_order_and_bounds() {
        let q: Arc<Queue<(u32, usize)>> = Arc::new(Queue::new(1000, None));
        q.attach();
        assert!(q.push_quiet(100, |c| (1, c)));
        assert!(q.push(Some(100), Wake::Now, |c| (2, c)));
        assert!(q.push(None, Wake::Now, |c| (3, c)));
        assert_eq!(q.try_pop(), Some((1, 164)));
        assert_eq!(q.pop(), Some((2, 164)));
        assert_eq!(q.pop(), Some((3, 0)));
        assert_eq!(q.try_pop(), None);
        // The two messages checked: their room is given back (the note took none).
        q.give_back(164);
        q.give_back(164);
        // The caps: bytes, then events.
        let wait = |q: &Queue<(u32, usize)>, bytes| q.full(&q.lock(), q.cost(bytes));
        // A message of any size fits an empty queue (its cost is capped).
        assert!(!wait(&q, Some(5000)));
        assert!(q.push_quiet(100, |c| (5, c)));
        assert!(!wait(&q, Some(772)) && wait(&q, Some(773)));
        let (_, cost) = q.pop().unwrap();
        q.give_back(cost);
        for i in 0..CHANNEL_CAPACITY {
            assert!(!wait(&q, None), "{i} events queued");
            q.push(None, Wake::Later, |c| (0, c));
        }
        assert!(wait(&q, None));
        while q.try_pop().is_some() {}
        // 900 bytes of messages fit, then a relay waits until the checker runs (it is
        // woken by the waiting relay, since the pushes were quiet) and gives room back.
        for i in 0..9 {
            assert!(q.push_quiet(36, |c| (10 + i, c)));
        }
        let relay = {
            let q = Arc::clone(&q);
            std::thread::spawn(move || {
                let queued = q.push_quiet(36, |c| (99, c));
                q.wake();
                queued
            })
        };
        let mut seen = Vec::new();
        while seen.len() < 10 {
            let (id, cost) = q.pop().expect("a sender is attached");
            seen.push(id);
            q.give_back(cost);
        }
        assert!(relay.join().unwrap());
        assert_eq!(seen, [10, 11, 12, 13, 14, 15, 16, 17, 18, 99]);
        // The last handle gone: the checker stops waiting; closed, pushes are refused.
        q.detach();
        assert_eq!(q.pop(), None);
        q.close();
        assert!(!q.push(None, Wake::Now, |c| (4, c)));
    }
}
