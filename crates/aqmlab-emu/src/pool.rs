//! The packet buffers: fixed-size slots in one growing arena, named by index (the index is the
//! `Packet::id` the disciplines carry). A slot is reused as soon as its packet is delivered or
//! dropped, so once the arena has grown to the largest number of packets held at once the
//! forwarder allocates nothing per packet.

/// Bytes per slot: the largest packet the forwarder reads (the devices' MTU is 1500).
pub const SLOT: usize = 2048;

/// Slots of packet bytes, with their lengths and a free list.
pub struct Pool {
    bytes: Vec<u8>,
    len: Vec<u16>,
    free: Vec<u32>,
}

impl Pool {
    /// A pool of `n` slots.
    pub fn new(n: usize) -> Pool {
        let mut p = Pool {
            bytes: Vec::new(),
            len: Vec::new(),
            free: Vec::new(),
        };
        p.grow(n.max(1));
        p
    }

    #[cold]
    fn grow(&mut self, more: usize) {
        let old = self.len.len();
        self.bytes.resize((old + more) * SLOT, 0);
        self.len.resize(old + more, 0);
        self.free.extend((old..old + more).rev().map(|i| i as u32));
    }

    /// A free slot (the pool doubles when none is left).
    #[inline]
    pub fn alloc(&mut self) -> u32 {
        if self.free.is_empty() {
            self.grow(self.len.len());
        }
        self.free.pop().expect("grown above")
    }

    /// Returns slot `i`.
    #[inline]
    pub fn release(&mut self, i: u32) {
        self.free.push(i);
    }

    /// The whole slot `i`, to read a packet into.
    #[inline]
    pub fn slot_mut(&mut self, i: u32) -> &mut [u8] {
        let s = i as usize * SLOT;
        &mut self.bytes[s..s + SLOT]
    }

    /// Records that slot `i` holds `n` bytes.
    #[inline]
    pub fn set_len(&mut self, i: u32, n: usize) {
        self.len[i as usize] = n.min(SLOT) as u16;
    }

    /// The packet in slot `i`.
    #[inline]
    pub fn packet_mut(&mut self, i: u32) -> &mut [u8] {
        let s = i as usize * SLOT;
        let n = self.len[i as usize] as usize;
        &mut self.bytes[s..s + n]
    }

    /// Slots in use.
    pub fn in_use(&self) -> usize {
        self.len.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_the_pool_grows() {
        let mut p = Pool::new(2);
        let a = p.alloc();
        let b = p.alloc();
        let c = p.alloc();
        assert_eq!(p.in_use(), 3);
        p.slot_mut(c)[..3].copy_from_slice(b"abc");
        p.set_len(c, 3);
        assert_eq!(p.packet_mut(c), b"abc");
        p.release(a);
        assert_eq!(p.alloc(), a);
        assert_ne!(a, b);
    }
}
