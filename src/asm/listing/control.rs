//! The control code the compiler encodes in every instruction from Volta
//! (sm_70) on.
//!
//! A Volta-and-later instruction is 128 bits; disassemblers print it as two
//! 64-bit words, low first. Bits 105 to 125 (bits 41 to 61 of the second,
//! high word) hold the scheduling fields ptxas chose, from the lowest bit up:
//!
//! | bits of the high word | field         | meaning                               |
//! |-----------------------|---------------|---------------------------------------|
//! | 41..=44               | stall         | cycles before the warp's next issue   |
//! | 45                    | yield         | 0: yield hint set (`Y`), 1: not set   |
//! | 46..=48               | write barrier | scoreboard set by the result, 7: none |
//! | 49..=51               | read barrier  | scoreboard released once sources read |
//! | 52..=57               | wait mask     | scoreboards to wait on before issue   |
//! | 58..=61               | reuse         | operand-reuse cache flags, slots 0..3 |
//!
//! This is the layout CuAssembler splits (`CuControlCode.splitCode`, with
//! the yield hint set when its bit is 0) and the one Jia et al. measured
//! ("Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking",
//! 2018: reuse 4, wait mask 6, read barrier 3, write barrier 3, yield 1,
//! stall 4, from the top down). The corpus under `tests/kernels` agrees:
//! every variable-latency result is waited on through the scoreboard its
//! producer names.

use std::fmt;

/// The fields sit at bit 41 of the high word.
const SHIFT: u32 = 41;
/// Scoreboard number meaning "none".
const NO_BARRIER: u8 = 7;
/// Scoreboards the wait mask covers.
const SCOREBOARDS: u8 = 6;

/// The scheduling fields of one instruction, as ptxas encodes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Control {
    /// Cycles before this warp may issue its next instruction (0..=15).
    pub stall: u8,
    /// The yield hint: let the scheduler pick another warp next.
    pub yield_: bool,
    /// Scoreboard the hardware clears when the result is written.
    pub write_barrier: Option<u8>,
    /// Scoreboard the hardware clears once the source registers are read.
    pub read_barrier: Option<u8>,
    /// Bit n set: wait for scoreboard n to clear before issuing.
    pub wait_mask: u8,
    /// Bit n set: keep source operand slot n in the reuse cache.
    pub reuse: u8,
}

impl Control {
    /// The fields the assembler's control code carries (all but reuse).
    pub fn to_ir(self) -> crate::asm::ir::Control {
        crate::asm::ir::Control {
            wait_mask: self.wait_mask,
            read_barrier: self.read_barrier,
            write_barrier: self.write_barrier,
            yield_hint: self.yield_,
            stall: self.stall,
        }
    }

    /// Decodes the fields from the high (second printed) word of a Volta or
    /// later instruction.
    pub fn from_high_word(word: u64) -> Control {
        Control::from_bits((word >> SHIFT) as u32)
    }

    /// Decodes the 21 field bits (bit 0 is the stall's lowest).
    pub fn from_bits(bits: u32) -> Control {
        let barrier = |v: u32| {
            let v = (v & 7) as u8;
            (v != NO_BARRIER).then_some(v)
        };
        Control {
            stall: (bits & 0xf) as u8,
            yield_: (bits >> 4) & 1 == 0,
            write_barrier: barrier(bits >> 5),
            read_barrier: barrier(bits >> 8),
            wait_mask: ((bits >> 11) & 0x3f) as u8,
            reuse: ((bits >> 17) & 0xf) as u8,
        }
    }

    /// The 21 field bits, the inverse of [`Control::from_bits`].
    pub fn bits(&self) -> u32 {
        let barrier = |b: Option<u8>| u32::from(b.unwrap_or(NO_BARRIER) & 7);
        u32::from(self.stall & 0xf)
            | (u32::from(!self.yield_) << 4)
            | (barrier(self.write_barrier) << 5)
            | (barrier(self.read_barrier) << 8)
            | (u32::from(self.wait_mask & 0x3f) << 11)
            | (u32::from(self.reuse & 0xf) << 17)
    }

    /// True when the wait mask holds scoreboard `sb`.
    pub fn waits_on(&self, sb: u8) -> bool {
        sb < SCOREBOARDS && self.wait_mask & (1 << sb) != 0
    }

    /// Reads the written form, `B--2---:R-:W2:Y:S04` (without brackets),
    /// as CuAssembler writes it; an older CuAssembler's leading reuse field
    /// (`----:` or `R---:`) is accepted too.
    pub fn parse(text: &str) -> Result<Control, String> {
        let mut fields: Vec<&str> = text.split(':').collect();
        let mut reuse = 0u8;
        if fields.len() == 6 {
            let r = fields.remove(0);
            if r.len() != 4 || !r.chars().all(|c| c == '-' || c == 'R') {
                return Err(format!("`{r}` is not a reuse field (four of `R` or `-`)"));
            }
            for (n, c) in r.chars().enumerate() {
                if c == 'R' {
                    reuse |= 1 << n;
                }
            }
        }
        let [wait, read, write, yld, stall] = fields.as_slice() else {
            return Err(format!(
                "`{text}` is not a control code (five fields separated by `:`)"
            ));
        };
        let wait_digits = wait
            .strip_prefix('B')
            .filter(|w| w.chars().count() == usize::from(SCOREBOARDS))
            .ok_or_else(|| {
                format!("`{wait}` is not a wait mask (`B` and six of a digit or `-`)")
            })?;
        let mut wait_mask = 0u8;
        for (n, c) in wait_digits.chars().enumerate() {
            match c {
                '-' => {}
                d if d.to_digit(10) == u32::try_from(n).ok() => wait_mask |= 1 << n,
                _ => {
                    return Err(format!(
                        "`{c}` at position {n} of the wait mask (expected `{n}` or `-`)"
                    ));
                }
            }
        }
        let barrier = |field: &str, letter: char, what: &str| -> Result<Option<u8>, String> {
            let v = field.strip_prefix(letter).ok_or_else(|| {
                format!("`{field}` is not a {what} (`{letter}` and a digit 0-5 or `-`)")
            })?;
            match v {
                "-" => Ok(None),
                d if d.len() == 1 && matches!(d.as_bytes()[0], b'0'..=b'5') => {
                    Ok(Some(d.as_bytes()[0] - b'0'))
                }
                _ => Err(format!(
                    "`{field}` is not a {what} (`{letter}` and a digit 0-5 or `-`)"
                )),
            }
        };
        let read_barrier = barrier(read, 'R', "read barrier")?;
        let write_barrier = barrier(write, 'W', "write barrier")?;
        let yield_ = match *yld {
            "Y" => true,
            "-" => false,
            other => return Err(format!("`{other}` is not a yield hint (`Y` or `-`)")),
        };
        let stall = stall
            .strip_prefix('S')
            .filter(|s| s.len() == 2 && s.chars().all(|c| c.is_ascii_digit()))
            .and_then(|s| s.parse::<u8>().ok())
            .filter(|s| *s <= 15)
            .ok_or_else(|| format!("`{stall}` is not a stall count (`S00` to `S15`)"))?;
        Ok(Control {
            stall,
            yield_,
            write_barrier,
            read_barrier,
            wait_mask,
            reuse,
        })
    }
}

impl fmt::Display for Control {
    /// Formats in the `[B--2---:R-:W2:Y:S04]` spelling the assembler reads
    /// (the reuse flags are not part of it: listings print them as `.reuse`
    /// on the operands).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_ir().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields of a high word, worked by hand: the word shifted right by 41
    /// (dropping its low 41 bits), then split from bit 0 up as stall 4,
    /// yield 1, write barrier 3, read barrier 3, wait mask 6, reuse 4.
    #[test]
    fn hand_decoded_words_of_the_seed_kernel_for_sm_90() {
        // LDG.E R0, desc[UR4][R2.64] at 0x00b0: 0x000ea4000c1e1900.
        // The low 40 bits are 0x000c1e1900 and bit 40 is 0xea4 & 1 = 0, so
        // >> 41 is 0xea4 >> 1 = 0x752 = 0b000_111_010_1_0010:
        // stall 2, yield bit 1 (no yield), write barrier 0b010 = 2, read
        // barrier 0b111 = none, wait mask 0.
        let ldg = Control::from_high_word(0x000e_a400_0c1e_1900);
        assert_eq!(
            ldg,
            Control {
                stall: 2,
                yield_: false,
                write_barrier: Some(2),
                read_barrier: None,
                wait_mask: 0,
                reuse: 0,
            }
        );
        assert_eq!(ldg.to_string(), "[B------:R-:W2:-:S02]");
        // FSETP.GT.AND P0, PT, R0, 0.5, PT at 0x00c0: 0x004fda0003f04000.
        // >> 41 is 0x4fda >> 1 = 0x27ed = 0b000100_111_111_0_1101: stall 13,
        // yield bit 0 (yield), no barriers, wait mask 0b000100: scoreboard
        // 2, the LDG's.
        let fsetp = Control::from_high_word(0x004f_da00_03f0_4000);
        assert_eq!(fsetp.stall, 13);
        assert!(fsetp.yield_);
        assert_eq!((fsetp.write_barrier, fsetp.read_barrier), (None, None));
        assert_eq!(fsetp.wait_mask, 0b100);
        assert!(fsetp.waits_on(2) && !fsetp.waits_on(0));
        assert_eq!(fsetp.to_string(), "[B--2---:R-:W-:Y:S13]");
        // @!P0 STG.E desc[UR4][R2.64], R5 at 0x00e0: 0x0001e2000c101904.
        // >> 41 is 0x1e2 >> 1 = 0xf1 = 0b000_000_111_1_0001: stall 1, no
        // yield, write barrier none, read barrier 0 (R5 may be overwritten
        // once the store has read it).
        let stg = Control::from_high_word(0x0001_e200_0c10_1904);
        assert_eq!(stg.to_string(), "[B------:R0:W-:-:S01]");
        // FADD R5, R0, R0 at 0x0100 overwrites R5: 0x001fca0000000000,
        // >> 41 is 0xfe5 = 0b000001_111_111_0_0101: waits on scoreboard 0.
        let fadd = Control::from_high_word(0x001f_ca00_0000_0000);
        assert_eq!(fadd.to_string(), "[B0-----:R-:W-:Y:S05]");
    }

    #[test]
    fn reuse_flags_sit_above_the_wait_mask() {
        // `FADD R3, -R2.reuse, R5` (device_call, sm_90): 0x040fe20000000100.
        // >> 41 is 0x40fe2 >> 1 = 0x207f1; bits 17..=20 are 0x207f1 >> 17 =
        // 1: the first source slot, the operand printed with `.reuse`.
        let c = Control::from_high_word(0x040f_e200_0000_0100);
        assert_eq!(c.reuse, 0b0001);
        assert_eq!(c.wait_mask, 0);
        assert_eq!(c.to_string(), "[B------:R-:W-:-:S01]");
    }

    #[test]
    fn cuassembler_padding_code() {
        // CuAssembler pads with control code 0x7e0 and writes it as
        // `[B------:R-:W-:Y:S00]` (CuSMVersion.Pad_CCode_7x_8x): stall 0,
        // yield bit 0, both barriers 7.
        let c = Control::from_bits(0x7e0);
        assert_eq!(c.to_string(), "[B------:R-:W-:Y:S00]");
        assert_eq!(c.bits(), 0x7e0);
    }

    #[test]
    fn bits_round_trip_over_every_field_value() {
        for bits in (0..1u32 << 21).step_by(37) {
            assert_eq!(Control::from_bits(bits).bits(), bits, "{bits:#x}");
        }
    }

    #[test]
    fn written_form_parses_back() {
        for s in [
            "B------:R-:W2:-:S02",
            "B--2---:R-:W-:Y:S13",
            "B01--4-:R0:W5:Y:S15",
            "B012345:R5:W0:-:S00",
        ] {
            let c = Control::parse(s).expect(s);
            assert_eq!(c.to_string(), format!("[{s}]"));
        }
        let c = Control::parse("R--R:B------:R-:W-:Y:S00").expect("reuse form");
        assert_eq!(c.reuse, 0b1001);
        for (s, what) in [
            ("B--3---:R-:W-:-:S01", "position 2"),
            ("B------:R-:W7:-:S01", "write barrier"),
            ("B-----:R-:W-:-:S01", "wait mask"),
            ("B------:R-:W-:Q:S01", "yield"),
            ("B------:R-:W-:-:S16", "stall"),
            ("B------:R-:W-:-", "five fields"),
        ] {
            let e = Control::parse(s).expect_err(s);
            assert!(e.contains(what), "{s}: {e}");
        }
    }
}
