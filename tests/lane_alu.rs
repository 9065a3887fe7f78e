//! The lane ALU, f64 and half2 opcodes of nvcc 13 listings, run through
//! the engine: every expected word is worked out by hand in a comment.

use warpstep::scenario::{Origin, Scenario};

fn run(program: &str) -> Vec<u32> {
    let text = format!(
        "name: alu\nlaunch: {{threads: 1}}\nmemory:\n  out: {{type: u32, len: 16}}\nconstants: {{0x160: out}}\nprogram: |\n{}",
        program
            .lines()
            .map(|l| format!("  {}\n", l.trim()))
            .collect::<String>()
    );
    let sc = match Scenario::from_text(&text, Origin::Builtin("alu-test".into())) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let mut m = sc.new_machine().expect("builds");
    m.run().expect("runs");
    let out = m.buffer("out").expect("out");
    out.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn integer_opcodes_as_listings_write_them() {
    let out = run("
        MOV R20, c[0x0][0x160]
        MOV R0, 0x80000000
        SHF.R.S32.HI R1, RZ, 0x1f, R0
        SHF.L.W.U32.HI R2, R0, 0x1, R0
        PRMT R3, R0, 0x9910, RZ
        FLO.U32 R4, R0
        BREV R5, R0
        IADD R6, R0, -0x1
        VIADD R7, R0, 0x10
        VIMNMX.S32 R8, R0, R6, PT
        PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0
        SEL R9, 0x7, 0x8, P0
        MOV R10, 0xffffffff
        MOV R11, 0x0
        IADD.64 R12, R10, 0x2
        HFMA2.MMA R14, -RZ, RZ, 1.875, 0
        STG.E [R20], R1
        STG.E [R20+0x4], R2
        STG.E [R20+0x8], R3
        STG.E [R20+0xc], R4
        STG.E [R20+0x10], R5
        STG.E [R20+0x14], R6
        STG.E [R20+0x18], R7
        STG.E [R20+0x1c], R8
        STG.E [R20+0x20], R9
        STG.E [R20+0x24], R12
        STG.E [R20+0x28], R13
        STG.E [R20+0x2c], R14
        EXIT
    ");
    // R1: the sign of 0x80000000 spread; R2: rotate left by 1 gives 1;
    // R3: bytes 0, 1 (0x0000) and byte 1's sign (0) twice: 0; R4: bit 31;
    // R5: reversed 0x80000000 is 1; R6: 0x7fffffff; R7: 0x80000010;
    // R8: signed min(-2^31, 2^31-1) = 0x80000000; R9: P0 true, so 7;
    // R12:R13: 0x00000000_ffffffff + 2 = 0x1_00000001; R14: 1.875 as the
    // high binary16 (0x3f80).
    assert_eq!(
        out[..12],
        [
            0xffff_ffff,
            1,
            0,
            31,
            1,
            0x7fff_ffff,
            0x8000_0010,
            0x8000_0000,
            7,
            1,
            1,
            0x3f80_0000
        ]
    );
}

#[test]
fn f64_pairs_and_directed_rounding() {
    let out = run("
        MOV R20, c[0x0][0x160]
        MOV R2, 0x0
        MOV R3, 0x40080000
        DADD R4, R2, 2
        DMUL R6, R4, -R2
        DSETP.GT.AND P0, PT, R4, 100, PT
        SEL R8, 0x1, 0x2, P0
        F2F.F32.F64 R9, R4
        MOV R10, 0x3f800000
        MOV R11, 0x30800000
        FADD.RP R12, R10, R11
        FADD R13, R10, R11
        I2F.F64 R14, R11
        STG.E [R20], R4
        STG.E [R20+0x4], R5
        STG.E [R20+0x8], R6
        STG.E [R20+0xc], R7
        STG.E [R20+0x10], R8
        STG.E [R20+0x14], R9
        STG.E [R20+0x18], R12
        STG.E [R20+0x1c], R13
        STG.E [R20+0x20], R14
        STG.E [R20+0x24], R15
        EXIT
    ");
    // R2:R3 = 3.0 (0x40080000_00000000); + 2 = 5.0 (0x40140000_00000000);
    // 5 * -3 = -15 (0xc02e0000_00000000); 5 > 100 is false: R8 = 2;
    // 5.0 as binary32 is 0x40a00000. 1 + 2^-30 (0x30800000 is 2^-30):
    // RP rounds up to 0x3f800001, RN to 1.0. 0x30800000 = 813694976 as
    // f64: 0x41c84000_00000000 (813694976 = 1.515625 * 2^29, by hand:
    // 0x30800000 >> 29 = 1, mantissa 0x10800000 / 2^29 = 0.515625).
    assert_eq!(
        out[..10],
        [
            0,
            0x4014_0000,
            0,
            0xc02e_0000,
            2,
            0x40a0_0000,
            0x3f80_0001,
            0x3f80_0000,
            0,
            0x41c8_4000
        ]
    );
}

#[test]
fn imad_hi_adds_a_register_pair_before_taking_the_high_word() {
    // nvcc's division idiom: `IMAD.HI.U32 R9, R9, R11, R8` with R8 = 0 adds
    // R9 << 32 (the pair R8:R9) to the product, i.e. umulhi(a, b) + a.
    let out = run("
        MOV R20, c[0x0][0x160]
        MOV R2, 0x80000000
        MOV R3, 0x3
        MOV R4, 0xffffffff
        MOV R5, 0x7
        IMAD.HI.U32 R6, R2, R3, R4
        IMAD.HI.U32 R7, R2, R3, RZ
        FSEL R8, R2, -R2, PT
        FSEL R9, R3, -R3, !PT
        STG.E [R20], R6
        STG.E [R20+0x4], R7
        STG.E [R20+0x8], R8
        STG.E [R20+0xc], R9
        EXIT
    ");
    // R6: 0x8000_0000 * 3 = 0x1_8000_0000; plus the pair R5:R4 =
    // 0x7_ffff_ffff gives 0x9_7fff_ffff: high word 9 (a 32-bit addend would
    // give 1 + 0xffffffff = 0).
    // R7: high word of 0x1_8000_0000 is 1.
    // R8: FSEL with PT takes a: 0x80000000. R9: !PT takes -R3 as a float:
    // the sign bit flipped, 0x80000003 (an integer negation would give
    // 0xfffffffd).
    assert_eq!(out[..4], [9, 1, 0x8000_0000, 0x8000_0003]);
}
