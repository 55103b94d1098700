//! A slab of values addressed by `u32` index, with a free list: the payloads of the packets in
//! flight (their headers travel in the `Packet` itself) and the open TCP connections live here,
//! so the steady state allocates nothing per packet.

/// Values addressed by index; freed slots are reused.
#[derive(Debug)]
pub struct Arena<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Arena<T> {
    /// An empty arena with room for `cap` values.
    pub fn with_capacity(cap: usize) -> Self {
        Arena {
            slots: Vec::with_capacity(cap),
            free: Vec::with_capacity(cap),
            live: 0,
        }
    }
    /// Stores `v`, returning its index.
    #[inline]
    pub fn insert(&mut self, v: T) -> u32 {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = Some(v);
            i
        } else {
            self.slots.push(Some(v));
            (self.slots.len() - 1) as u32
        }
    }
    /// Frees slot `i` (its value is dropped in place, not moved out: a payload is read where it
    /// lies). Panics if the slot is empty (a packet freed twice).
    #[inline]
    pub fn free(&mut self, i: u32) {
        let slot = &mut self.slots[i as usize];
        assert!(slot.is_some(), "arena slot freed twice");
        *slot = None;
        self.free.push(i);
        self.live -= 1;
    }
    /// The value at `i`.
    #[inline]
    pub fn get(&self, i: u32) -> &T {
        self.slots[i as usize]
            .as_ref()
            .expect("arena slot is empty")
    }
    /// The value at `i`, mutably.
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        self.slots[i as usize]
            .as_mut()
            .expect("arena slot is empty")
    }
    /// The value at `i`, if the slot holds one.
    #[inline]
    pub fn try_get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.slots.get_mut(i as usize).and_then(Option::as_mut)
    }
    /// The value at `i`, if the slot holds one.
    #[inline]
    pub fn try_get(&self, i: u32) -> Option<&T> {
        self.slots.get(i as usize).and_then(Option::as_ref)
    }
    /// Values stored.
    pub fn len(&self) -> usize {
        self.live
    }
    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
}
