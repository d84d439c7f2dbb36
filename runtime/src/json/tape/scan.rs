//! The fast scan inside a JSON string ([`scan_string`]): where the run of plain bytes ends,
//! with SSE2 on x86_64 and eight bytes at a time elsewhere; the parser ([`super`]) calls it for
//! every string and key.

// Bytes that end the fast scan inside a string: quote, backslash, control characters.
pub(super) static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Where the fast scan inside a string stops: the index of the first byte at or after `j` that
/// is a quote, a backslash or a control character (`b.len()` if none), and whether a byte of
/// `0x80` or more may be among the bytes read (`false` means every byte from `j` up to the stop
/// is ASCII; `true` may also come from bytes read past the stop, which only costs the caller a
/// UTF-8 check it did not need).
///
/// On x86_64, 16 bytes per compare with SSE2 (part of the x86_64 baseline, so no feature
/// detection), 32 per step while the input lasts; elsewhere (and for the last bytes) the
/// portable [`scan_string_swar`]. Tests run both paths ([`force_portable_scan`]).
#[inline(always)]
pub(crate) fn scan_string(b: &[u8], j: usize) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    {
        #[cfg(test)]
        if PORTABLE_SCAN.with(std::cell::Cell::get) {
            return scan_string_swar(b, j);
        }
        scan_string_sse2(b, j)
    }
    #[cfg(not(target_arch = "x86_64"))]
    scan_string_swar(b, j)
}

#[cfg(test)]
thread_local! {
    /// Tests: `true` makes [`scan_string`] take the portable path on this thread.
    static PORTABLE_SCAN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Tests: runs `f` with [`scan_string`] on its portable path (or not), then restores it.
#[cfg(test)]
pub(crate) fn force_portable_scan<R>(portable: bool, f: impl FnOnce() -> R) -> R {
    let old = PORTABLE_SCAN.with(|c| c.replace(portable));
    let r = f();
    PORTABLE_SCAN.with(|c| c.set(old));
    r
}

/// [`scan_string`] with SSE2: a byte stops the scan when it equals `"` or `\\`, or when
/// `min(byte, 0x1f) == byte` (unsigned: the byte is a control character); `movemask` gathers the
/// lanes' verdicts into bits and the lowest set bit is the first stop. The chunks read are ORed
/// together: their high bits say whether a non-ASCII byte was seen. The last `< 16` bytes go to
/// [`scan_string_swar`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn scan_string_sse2(b: &[u8], mut j: usize) -> (usize, bool) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    #[inline(always)]
    fn stops(x: __m128i) -> __m128i {
        // SAFETY: SSE2 register operations only (no memory access); SSE2 is enabled on every
        // x86_64 target (`target_feature = "sse2"` is part of the baseline).
        unsafe {
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            _mm_or_si128(_mm_or_si128(quote, backslash), control)
        }
    }
    let len = b.len();
    let p = b.as_ptr();
    // SAFETY: register operation only, SSE2 as above.
    let mut seen = unsafe { _mm_setzero_si128() };
    // SAFETY (for the `movemask` of `seen` below): register operation only, SSE2 as above.
    let high = |seen: __m128i| unsafe { _mm_movemask_epi8(seen) != 0 };
    // Most strings (keys) are short: one 16-byte probe first, then 32 bytes per step.
    if j + 16 <= len {
        // SAFETY: `j + 16 <= b.len()`: the load reads inside `b`; then register operations.
        let m = unsafe {
            let x = _mm_loadu_si128(p.add(j).cast());
            seen = x;
            _mm_movemask_epi8(stops(x)) as u32
        };
        if m != 0 {
            return (j + m.trailing_zeros() as usize, high(seen));
        }
        j += 16;
    }
    while j + 32 <= len {
        // SAFETY: `j + 32 <= b.len()`, so both 16-byte unaligned loads read inside `b`.
        let (lo, hi) = unsafe { (_mm_loadu_si128(p.add(j).cast()), _mm_loadu_si128(p.add(j + 16).cast())) };
        let (slo, shi) = (stops(lo), stops(hi));
        // SAFETY: register operations only, SSE2 as above.
        let any = unsafe {
            seen = _mm_or_si128(seen, _mm_or_si128(lo, hi));
            _mm_movemask_epi8(_mm_or_si128(slo, shi))
        };
        if any != 0 {
            // SAFETY: as above.
            let m = unsafe { _mm_movemask_epi8(slo) as u32 | ((_mm_movemask_epi8(shi) as u32) << 16) };
            return (j + m.trailing_zeros() as usize, high(seen));
        }
        j += 32;
    }
    if j + 16 <= len {
        // SAFETY: `j + 16 <= b.len()`: the load reads inside `b`; then register operations.
        let m = unsafe {
            let x = _mm_loadu_si128(p.add(j).cast());
            seen = _mm_or_si128(seen, x);
            _mm_movemask_epi8(stops(x)) as u32
        };
        if m != 0 {
            return (j + m.trailing_zeros() as usize, high(seen));
        }
        j += 16;
    }
    let (j, rest) = scan_string_swar(b, j);
    (j, rest || high(seen))
}

/// The portable [`scan_string`]: eight bytes at a time (SWAR): for each byte lane,
/// `x - 0x01..` borrows into the high bit exactly when the lane was below the bound, and the
/// lowest flagged lane is always exact, which is the only one used.
#[inline]
pub(super) fn scan_string_swar(b: &[u8], mut j: usize) -> (usize, bool) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    #[inline(always)]
    fn stops(w: u64) -> u64 {
        let q = w ^ (ONES * b'"' as u64);
        let s = w ^ (ONES * b'\\' as u64);
        let zero_q = q.wrapping_sub(ONES) & !q;
        let zero_s = s.wrapping_sub(ONES) & !s;
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        (zero_q | zero_s | control) & HIGH
    }
    // The words read, ORed: their high bits say whether a non-ASCII byte was seen.
    let mut seen = 0u64;
    // Two words per step while the input lasts (fewer bounds checks and branches), then one.
    while let Some(chunk) = b.get(j..j + 16) {
        let (lo, hi) = chunk.split_at(8);
        let lo = u64::from_le_bytes(lo.try_into().expect("8 bytes"));
        let hi = u64::from_le_bytes(hi.try_into().expect("8 bytes"));
        seen |= lo | hi;
        let m = stops(lo);
        if m != 0 {
            return (j + (m.trailing_zeros() / 8) as usize, seen & HIGH != 0);
        }
        let m = stops(hi);
        if m != 0 {
            return (j + 8 + (m.trailing_zeros() / 8) as usize, seen & HIGH != 0);
        }
        j += 16;
    }
    while let Some(chunk) = b.get(j..j + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        seen |= w;
        let m = stops(w);
        if m != 0 {
            return (j + (m.trailing_zeros() / 8) as usize, seen & HIGH != 0);
        }
        j += 8;
    }
    while j < b.len() && !STRING_STOP[b[j] as usize] {
        seen |= u64::from(b[j]);
        j += 1;
    }
    (j, seen & HIGH != 0)
}
