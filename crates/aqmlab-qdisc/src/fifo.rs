//! A FIFO of packet descriptors with an exact byte count: the storage under DropTail, RED, CoDel
//! and PIE, and under each FQ-CoDel flow.

use crate::contract::Backlog;
use aqmlab_core::units::Size;
use aqmlab_core::Packet;
use std::collections::VecDeque;

/// How many packets a queue with `limit` should have room for before it first reallocates:
/// the packet limit (capped at 65 536), or 1024 for a byte limit. Queues grow past it if needed.
pub fn capacity_for(limit: Size) -> usize {
    match limit {
        Size::Packets(n) => n.min(1 << 16) as usize,
        Size::Bytes(_) => 1024,
    }
}

/// Packets in arrival order, with their total size.
#[derive(Clone, Debug, Default)]
pub struct PacketFifo {
    q: VecDeque<Packet>,
    bytes: u64,
}

impl PacketFifo {
    /// An empty FIFO with room for `cap` packets before it reallocates.
    pub fn with_capacity(cap: usize) -> Self {
        PacketFifo {
            q: VecDeque::with_capacity(cap),
            bytes: 0,
        }
    }
    /// Appends at the tail.
    #[inline]
    pub fn push_back(&mut self, p: Packet) {
        self.bytes += p.size_bytes as u64;
        self.q.push_back(p);
    }
    /// Removes the head.
    #[inline]
    pub fn pop_front(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size_bytes as u64;
        if self.q.is_empty() {
            // Rewinds the ring to its start (`clear` resets the head), so a queue that is mostly
            // empty keeps reusing its first cache lines instead of walking its whole capacity:
            // with many lightly loaded links that is the difference between L1 hits and misses.
            self.q.clear();
        }
        Some(p)
    }
    /// The head, if any.
    #[inline]
    pub fn front(&self) -> Option<&Packet> {
        self.q.front()
    }
    /// The packet `i` places behind the head, if any.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Packet> {
        self.q.get(i)
    }
    /// Removes the packet `i` places behind the head (CAKE's ACK filter drops from mid-queue).
    pub fn remove(&mut self, i: usize) -> Option<Packet> {
        let p = self.q.remove(i)?;
        self.bytes -= p.size_bytes as u64;
        Some(p)
    }
    /// Packets queued.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    /// Bytes queued.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Packets and bytes.
    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog {
            packets: self.q.len() as u32,
            bytes: self.bytes,
        }
    }
}
