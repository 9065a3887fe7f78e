//! Loading tests: every expected value below is worked out by hand from
//! docs/scenario-format.md and the layout rules in `memory.rs`.

use super::*;
use crate::asm::AsmError;

/// docs/scenario-format.md's example, plus two buffers that exercise alignment.
const FULL: &str = r#"
version: 1
name: if/else, 16/16 split
description: |
  Why this scenario exists, what to look at.
machine:
  warp_width: 32
  convergence: stack
  taken_first: true
  schedulers: 1
  policy: lrr
  sms: 1
  max_warps_per_sm: 64
  max_blocks_per_sm: 32
  latency:
    alu: 4
    sfu: 16
    shared: 24
    global: 400
    global_per_extra_line: 8
    branch: 0
  max_cycles: 10000000
launch:
  threads: 32
constants:
  0x160: 1000003
memory:
  data:
    type: f32
    len: 1024
    init: "rand(7)"
  out: {type: f32, len: 1024}
  idx: {type: u32, init: [1, 2, 3]}
  after: {type: i32, len: 2, init: "-1 - i"}
inputs:
  R1: "tid % 2"
  R2: [5, 1, 1, 1]
  R4: "data + 4 * tid"
  P0: "lane < 16"
program: |
  ISETP.LT.AND P0, PT, R1, 1, PT
  EXIT
expect:
  simd_efficiency: 0.545
  branch_efficiency: {min: 0.99}
  cycles: {max: 200}
  warps.0.branches: null
"#;

fn load(text: &str) -> Scenario {
    match Scenario::from_text(text, Origin::Builtin("test".into())) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn word(bytes: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[i * 4..i * 4 + 4]);
    u32::from_le_bytes(w)
}

#[test]
fn format_md_example_loads() {
    // The leading newline of FULL shifts every line by one.
    let s = load(FULL);
    assert_eq!(s.version, 1);
    assert_eq!(s.name, "if/else, 16/16 split");
    assert_eq!(
        s.description,
        "Why this scenario exists, what to look at.\n"
    );
    assert_eq!(s.machine, MachineSpec::default());
    assert_eq!(
        s.launch,
        LaunchSpec {
            blocks: 1,
            block_dim: 32,
            shared_bytes: 49152,
            block_shape: None,
            grid_shape: None,
        }
    );
    // blockDim = (32, 1, 1) and gridDim = (1, 1, 1) by default, plus 0x160.
    let want: BTreeMap<u32, u32> = [
        (0x0, 32),
        (0x4, 1),
        (0x8, 1),
        (0xc, 1),
        (0x10, 1),
        (0x14, 1),
        (0x160, 1_000_003),
    ]
    .into_iter()
    .collect();
    assert_eq!(s.constants, want);
    assert_eq!(s.program_text, "ISETP.LT.AND P0, PT, R1, 1, PT\nEXIT\n");
    // `program: |` is file line 40; its content starts on 41, indented 2.
    assert_eq!((s.program_line, s.program_indent), (41, 2));
    assert_eq!(s.warps_per_block(), 1);
}

#[test]
fn buffers_are_laid_out_256_apart() {
    let s = load(FULL);
    let layout: Vec<(&str, ElemType, u32, u32)> = s
        .buffers
        .iter()
        .map(|b| (b.name.as_str(), b.ty, b.len, b.base))
        .collect();
    assert_eq!(
        layout,
        [
            // 1024 elements = 0x1000 bytes: ends at 0x101000.
            ("data", ElemType::F32, 1024, 0x10_0000),
            // 0x101000 + 0x100 is already 256-aligned; ends at 0x102100.
            ("out", ElemType::F32, 1024, 0x10_1100),
            // 0x102100 + 0x100 = 0x102200; 3 elements end at 0x10220C.
            ("idx", ElemType::U32, 3, 0x10_2200),
            // 0x10220C + 0x100 = 0x10230C, rounded up to 0x102400.
            ("after", ElemType::I32, 2, 0x10_2400),
        ]
    );
    let data = &s.buffers[0].init;
    assert_eq!(data.len(), 4096);
    // rand(7) at i = 0 is 0.17386786595968284 (see the expr tests); as f32
    // that is 0x3E320A6B, stored little-endian.
    assert_eq!(&data[..4], &[0x6B, 0x0A, 0x32, 0x3E]);
    // i = 1: 0.9426143746841554 -> f32 0x3F714F2D.
    assert_eq!(word(data, 1), 0x3F71_4F2D);
    assert!(s.buffers[1].init.iter().all(|&b| b == 0));
    assert_eq!(s.buffers[2].init, [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    // -1 - i: -1 and -2 in two's complement.
    assert_eq!(word(&s.buffers[3].init, 0), 0xFFFF_FFFF);
    assert_eq!(word(&s.buffers[3].init, 1), 0xFFFF_FFFE);
}

#[test]
fn inputs_per_thread() {
    let s = load(FULL);
    let targets: Vec<InputTarget> = s.inputs.iter().map(|i| i.target).collect();
    assert_eq!(
        targets,
        [
            InputTarget::Reg(1),
            InputTarget::Reg(2),
            InputTarget::Reg(4),
            InputTarget::Pred(0)
        ]
    );
    let at = |input: usize, tid: u64| s.inputs[input].value(&s.thread_ctx(tid));
    // R1 = tid % 2 for lanes 0..3.
    assert_eq!((0..4).map(|t| at(0, t)).collect::<Vec<_>>(), [0, 1, 0, 1]);
    // R2 = [5, 1, 1, 1] repeats every 4 threads.
    assert_eq!(
        (0..8).map(|t| at(1, t)).collect::<Vec<_>>(),
        [5, 1, 1, 1, 5, 1, 1, 1]
    );
    // R4 = data + 4 * tid: thread 3 -> 0x100000 + 12.
    assert_eq!(at(2, 3), 0x10_000C);
    // P0 = lane < 16.
    assert_eq!((at(3, 15), at(3, 16)), (1, 0));
    // A warp's values at once, as its block launches (the chains step
    // over the 32 threads together), are the same as thread by thread:
    // lanes 8..12 of the one warp.
    let first = ThreadIds {
        tid: 8,
        lane: 8,
        warp: 0,
        block: 0,
        ntid: 32,
        nthreads: 32,
    };
    let warp = |input: usize| {
        let mut out = [0u32; 4];
        ThreadInit::values(&s.inputs[input], &first, &mut out);
        out
    };
    assert_eq!(warp(0), [0, 1, 0, 1]);
    assert_eq!(warp(1), [5, 1, 1, 1]);
    assert_eq!(warp(2), [0x10_0020, 0x10_0024, 0x10_0028, 0x10_002C]);
    assert_eq!(warp(3), [1, 1, 1, 1]);
}

#[test]
fn expectations_keep_order_and_position() {
    let s = load(FULL);
    let got: Vec<(&str, &Check, u32, u32)> = s
        .expect
        .iter()
        .map(|e| (e.key.as_str(), &e.check, e.line, e.column))
        .collect();
    assert_eq!(
        got,
        [
            ("simd_efficiency", &Check::Equal(0.545), 44, 3),
            (
                "branch_efficiency",
                &Check::Range {
                    min: Some(0.99),
                    max: None
                },
                45,
                3
            ),
            (
                "cycles",
                &Check::Range {
                    min: None,
                    max: Some(200.0)
                },
                46,
                3
            ),
            ("warps.0.branches", &Check::Null, 47, 3),
        ]
    );
}

#[test]
fn grid_launch_and_partial_warps() {
    let s = load(
        "name: grid\nmachine: {warp_width: 32}\nlaunch: {blocks: 3, block_dim: 40}\nconstants: {0x4: 7}\nprogram: EXIT\n",
    );
    assert_eq!(s.launch.threads(), 120);
    // 40 threads = one full warp and one of 8 lanes: 2 warps per block.
    assert_eq!(s.warps_per_block(), 2);
    // blockDim.x = 40 and gridDim.x = 3 by default; 0x4 set by the file.
    assert_eq!(s.constants.get(&0x0), Some(&40));
    assert_eq!(s.constants.get(&0x4), Some(&7));
    assert_eq!(s.constants.get(&0xc), Some(&3));
    // Thread 35: block 0, 36th thread of it -> warp 1, lane 3.
    let t = s.thread_ctx(35);
    assert_eq!((t.block, t.warp, t.lane), (0, 1, 3));
    // Thread 40 starts block 1, whose first warp is global warp 2.
    let t = s.thread_ctx(40);
    assert_eq!(
        (t.block, t.warp, t.lane, t.ntid, t.nthreads),
        (1, 2, 0, 40, 120)
    );
}

#[test]
fn constants_take_expressions_and_fill_values() {
    let s = load(concat!(
        "name: literals\n",
        "launch: {threads: 4}\n",
        "memory: {buf: {type: u32, len: 4, init: 9}}\n",
        "constants:\n",
        "  0x160: \"buf + ntid\"\n",
        "  0x164: -1\n",
        "  0x168: 0.5\n",
        "inputs:\n",
        "  R3: 1.5\n",
        "  R5: -2\n",
        "  P1: [true, false]\n",
        "  P2: 3\n",
        "program: \"EXIT\"\n",
    ));
    // buf is at 0x100000, ntid = 4.
    assert_eq!(s.constants.get(&0x160), Some(&0x10_0004));
    assert_eq!(s.constants.get(&0x164), Some(&0xFFFF_FFFF));
    // 0.5f32 = 0x3F000000.
    assert_eq!(s.constants.get(&0x168), Some(&0x3F00_0000));
    assert_eq!(s.buffers[0].init, [9, 0, 0, 0].repeat(4));
    let vals: Vec<u32> = s.inputs.iter().map(|i| i.value(&s.thread_ctx(1))).collect();
    // 1.5f32 = 0x3FC00000; -2 = 0xFFFFFFFE; thread 1 gets false; 3 is true.
    assert_eq!(vals, [0x3FC0_0000, 0xFFFF_FFFE, 0, 1]);
    // A quoted one-line program: content starts after the quote at column 10.
    assert_eq!((s.program_line, s.program_indent), (13, 10));
}

#[test]
fn machine_keys_and_validate_machine() {
    let mut s = load(concat!(
        "name: m\n",
        "machine:\n",
        "  warp_width: 8\n",
        "  convergence: its\n",
        "  taken_first: false\n",
        "  schedulers: 4\n",
        "  policy: gto\n",
        "  group_policy: lowest_pc\n",
        "  sms: 2\n",
        "  max_warps_per_sm: 16\n",
        "  max_blocks_per_sm: 4\n",
        "  shared_banks: 16\n",
        "  latency: {alu: 6, sfu: 20, shared: 30, global: 500, global_per_extra_line: 0,\n",
        "            branch: 2, sfu_interval: 4, shared_replay: 3, read_barrier: 1}\n",
        "  max_cycles: 5000\n",
        "launch: {threads: 128, shared_bytes: 1024}\n",
        "program: EXIT\n",
    ));
    let m = &s.machine;
    assert_eq!(
        (
            m.warp_width,
            m.convergence,
            m.taken_first,
            m.schedulers,
            m.policy
        ),
        (8, Convergence::Its, false, 4, Policy::Gto)
    );
    assert_eq!(
        (
            m.group_policy,
            m.sms,
            m.max_warps_per_sm,
            m.max_blocks_per_sm,
            m.shared_banks
        ),
        (GroupPolicy::LowestPc, 2, 16, 4, 16)
    );
    assert_eq!(
        m.latency,
        Latency {
            alu: 6,
            sfu: 20,
            shared: 30,
            global: 500,
            global_per_extra_line: 0,
            branch: 2,
            sfu_interval: 4,
            shared_replay: 3,
            read_barrier: 1,
            // Not in the file: the defaults.
            special: 20,
            constant: 20,
            shuffle: None,
            atomic: None,
        }
    );
    assert_eq!((m.max_cycles, s.launch.shared_bytes), (5000, 1024));
    assert_eq!(s.validate_machine(), Ok(()));
    // 128 threads / 8 lanes = 16 warps: exactly fits 16 slots.
    s.machine.max_warps_per_sm = 15;
    let err = s.validate_machine().unwrap_err();
    assert!(err.contains("needs 16 warps of 8"), "{err}");
    s.machine.max_warps_per_sm = 16;
    s.machine.warp_width = 0;
    let err = s.validate_machine().unwrap_err();
    assert!(
        err.starts_with("`machine.warp_width` is 0, out of range"),
        "{err}"
    );
    s.machine.warp_width = 8;
    s.machine.latency.alu = 65;
    assert!(
        s.validate_machine()
            .unwrap_err()
            .contains("machine.latency.alu")
    );
    s.machine.latency.alu = 5;
    assert_eq!(s.reassemble(), Ok(()));
}

fn asm_error(line: u32, column: u32, len: u32) -> AsmError {
    AsmError {
        line,
        column,
        len,
        message: "unknown opcode `FFMAA`".into(),
        expected: Some("an opcode".into()),
        hint: Some("did you mean `FFMA`?".into()),
    }
}

#[test]
fn assembler_errors_map_to_file_coordinates() {
    let text = "name: p\nprogram: |\n    MOV R1, 2\n    FFMAA R1, R1, R1, R1\n";
    let src = error::SourceFile {
        file: "p.yaml".into(),
        text,
    };
    let program = "MOV R1, 2\nFFMAA R1, R1, R1, R1\n";
    // Block scalar: content starts on line 3, indented 4.
    let err = program::map_error(&src, program, (3, 4), &asm_error(2, 1, 5));
    // Program line 2 -> file line 4; column 1 + indent 4 = 5.
    assert_eq!((err.line, err.column, err.len), (4, 5, 5));
    assert_eq!(err.key.as_deref(), Some("program"));
    let shown = err.to_string();
    assert!(
        shown.contains(" 4 |     FFMAA R1, R1, R1, R1\n   |     ^^^^^"),
        "{shown}"
    );
    assert!(shown.contains("= hint: did you mean `FFMA`?"));

    // A quoted one-liner: `program: "FFMAA R1"` has its content at column 11.
    let text = "name: p\nprogram: \"FFMAA R1\"\n";
    let src = error::SourceFile {
        file: "p.yaml".into(),
        text,
    };
    let err = program::map_error(&src, "FFMAA R1", (2, 10), &asm_error(1, 1, 5));
    assert_eq!((err.line, err.column), (2, 11));

    // A folded scalar does not keep lines: point at the start, name the line.
    let text = "name: p\nprogram: >\n  MOV R1, 2\n  FFMAA R1\n";
    let src = error::SourceFile {
        file: "p.yaml".into(),
        text,
    };
    let err = program::map_error(&src, "MOV R1, 2 FFMAA R1\n", (3, 2), &asm_error(1, 11, 5));
    assert_eq!((err.line, err.column), (3, 3));
    assert!(err.message.contains("(program line 1, column 11)"));
}

#[test]
fn inputs_by_block_and_lane_are_checked_once_per_value() {
    // 3 blocks: `100 / (block - 2)` fails only for block 2, first thread 64.
    let err = Scenario::from_text(
        "name: b\nlaunch: {blocks: 3, block_dim: 32}\ninputs:\n  R1: \"100 / (block - 2)\"\nprogram: EXIT\n",
        Origin::Builtin("b".into()),
    )
    .unwrap_err();
    assert!(
        err.message
            .contains("division by zero in `inputs.R1` for thread 64 (block 2, warp 2, lane 0)"),
        "{}",
        err.message
    );
}

#[test]
fn a_latency_override_links_the_kernel_again() {
    let mut s = load("name: t\nprogram: |\n  MOV R1, 1\n  EXIT\n");
    // The MOV takes the default ALU latency, 4 cycles.
    assert_eq!(s.kernel().code()[0].latency, 4);
    s.machine.latency.alu = 6;
    // Linked for 4: a machine of 6 refuses the kernel until it is linked again.
    assert_eq!(
        s.new_machine().err(),
        Some(crate::engine::ConfigError::LatencyMismatch)
    );
    assert_eq!(s.reassemble(), Ok(()));
    assert_eq!(s.kernel().code()[0].latency, 6);
    assert!(s.new_machine().is_ok());
}

#[test]
fn typed_buffers_take_their_element_size() {
    let s = load(
        "name: t
memory:
  a: {type: f64, len: 40, init: \"i * 1.5\"}
  b: {type: u8, init: [1, 255, -1]}
  c: {type: i16, len: 2, init: \"-1 - i\"}
  d: {type: u64, init: [18446744073709551615]}
program: EXIT
",
    );
    let layout: Vec<(ElemType, u32, u32, u32)> = s
        .buffers
        .iter()
        .map(|b| (b.ty, b.len, b.bytes(), b.base))
        .collect();
    assert_eq!(
        layout,
        [
            // 40 x 8 = 0x140 bytes: ends at 0x100140, + 0x100 rounds to
            // 0x100300 (4-byte elements would end at 0x1000a0: 0x100200).
            (ElemType::F64, 40, 320, 0x10_0000),
            // 3 bytes: ends at 0x100303; + 0x100 = 0x100403 -> 0x100500.
            (ElemType::U8, 3, 3, 0x10_0300),
            (ElemType::I16, 2, 4, 0x10_0500),
            (ElemType::U64, 1, 8, 0x10_0700),
        ]
    );
    // 1.5 as f64 is 0x3FF8_0000_0000_0000; 3.0 is 0x4008_0000_0000_0000.
    assert_eq!(
        &s.buffers[0].init[8..16],
        &0x3FF8_0000_0000_0000u64.to_le_bytes()
    );
    assert_eq!(
        &s.buffers[0].init[16..24],
        &0x4008_0000_0000_0000u64.to_le_bytes()
    );
    // -1 in a u8 is 0xff.
    assert_eq!(s.buffers[1].init, [1, 255, 255]);
    // -1, -2 as i16: 0xffff, 0xfffe.
    assert_eq!(s.buffers[2].init, [0xff, 0xff, 0xfe, 0xff]);
    assert_eq!(s.buffers[3].init, [0xff; 8]);
}

#[test]
fn init_expressions_of_every_type_hold_past_a_run_of_elements() {
    // 5000 elements: the first 4096 are one run, the rest another. Each
    // value by hand, at an element of the second run.
    let s = load(
        "name: t
memory:
  a: {type: u32, len: 5000, init: \"(i * 37) % 4096\"}
  b: {type: f32, len: 5000, init: \"0.25 + (i % 7)\"}
  c: {type: u16, len: 5000, init: \"i * 3\"}
  d: {type: i64, len: 5000, init: \"-i\"}
  e: {type: f64, len: 5000, init: \"rand(5)\"}
  f: {type: u8, len: 5000, init: \"i % 256\"}
  g: {type: f32, len: 5000, init: \"i / 2\"}
program: EXIT
",
    );
    let at = |b: usize, i: usize| {
        let size = s.buffers[b].ty.size() as usize;
        let mut v = [0u8; 8];
        v[..size].copy_from_slice(&s.buffers[b].init[i * size..(i + 1) * size]);
        u64::from_le_bytes(v)
    };
    // 4100 x 37 = 151,700 = 37 x 4096 + 148.
    assert_eq!(at(0, 4100), 148);
    // 4099 = 585 x 7 + 4: 4.25.
    assert_eq!(at(1, 4099), u64::from(4.25f32.to_bits()));
    assert_eq!(at(2, 4500), 13_500);
    assert_eq!(at(3, 4097), (-4097i64) as u64);
    assert_eq!(at(4, 4098), crate::expr::rand_unit(5, 4098).to_bits());
    // 4353 = 17 x 256 + 1.
    assert_eq!(at(5, 4353), 1);
    // Integer division: 4097 / 2 = 2048, stored as a float.
    assert_eq!(at(6, 4097), u64::from(2048.0f32.to_bits()));
    // And one value of each from the first run.
    assert_eq!(
        [at(0, 3), at(2, 7), at(3, 1), at(5, 300)],
        [111, 21, u64::MAX, 44]
    );
}

#[test]
fn typed_buffer_ranges_are_located_errors() {
    let e = Scenario::from_text(
        "name: t\nmemory:\n  b: {type: u8, init: [1, 256]}\nprogram: EXIT\n",
        Origin::Builtin("test".into()),
    )
    .unwrap_err();
    // `256` is on line 3, column 27 (the `[` is column 23).
    assert_eq!((e.line, e.column), (3, 27), "{e}");
    assert!(
        e.message.contains("256 does not fit in u8 (0 to 255)"),
        "{e}"
    );
    let e = Scenario::from_text(
        "name: t\nmemory:\n  b: {type: i8, len: 300, init: \"i\"}\nprogram: EXIT\n",
        Origin::Builtin("test".into()),
    )
    .unwrap_err();
    assert!(e.to_string().contains("element i = 256"), "{e}");
}

#[test]
fn expect_names_buffers_the_scenario_has() {
    let s = load(
        "name: t
memory:
  out: {type: u32, len: 4}
program: EXIT
expect:
  buffers.out: [0, 0, 0, 0]
  buffers.out.3: 0
",
    );
    assert_eq!(s.expect[0].check, Check::List(vec![0.0; 4]));
    assert_eq!(s.expect[1].check, Check::Equal(0.0));
    let err = |text: &str| {
        Scenario::from_text(text, Origin::Builtin("test".into()))
            .unwrap_err()
            .to_string()
    };
    let e = err(
        "name: t\nmemory:\n  out: {type: u32, len: 4}\nprogram: EXIT\nexpect:\n  buffers.ot.0: 1\n",
    );
    assert!(
        e.contains("names no buffer `ot`") && e.contains("did you mean `out`?"),
        "{e}"
    );
    let e = err(
        "name: t\nmemory:\n  out: {type: u32, len: 4}\nprogram: EXIT\nexpect:\n  buffers.out.4: 1\n",
    );
    assert!(e.contains("has 4 elements"), "{e}");
}
