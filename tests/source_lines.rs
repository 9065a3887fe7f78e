//! Per-source-line counters (`lines:` of the report) on the corpus's seed
//! kernel, `tests/kernels/seed.cu` as nvcc compiled it for sm_90 with line
//! info (`seed.sm_90.nvdisasm`, `nvdisasm -c -g -hex`). Every number is
//! worked out by hand below from the listing and the launch.

use std::fmt::Write as _;

use warpstep::report::Report;
use warpstep::scenario::{Origin, Scenario};

const LISTING: &str = include_str!("kernels/seed.sm_90.nvdisasm");
const SOURCE: &str = include_str!("kernels/seed.cu");

/// The lecture's launch: n = 1,000,003 elements, 256 threads a block,
/// ceil(n / 256) = 3907 blocks. `data[i] = (i % 4) * 0.25`: 0, 0.25, 0.5,
/// 0.75, so only `i % 4 == 3` is `> 0.5`.
fn seed_scenario() -> Scenario {
    let mut y = String::from(
        "name: seed kernel with line info\n\
         launch: {blocks: 3907, block_dim: 256}\n\
         memory:\n  data: {type: f32, len: 1000003, init: \"i % 4 * 0.25\"}\n\
         args: [data, 1000003]\n\
         program: |\n",
    );
    for l in LISTING.lines() {
        if l.trim().is_empty() {
            y.push('\n');
        } else {
            let _ = writeln!(y, "  {l}");
        }
    }
    Scenario::from_text(&y, Origin::File("seed.yaml".into())).expect("the seed scenario loads")
}

fn report(sc: &Scenario) -> Report {
    let mut m = sc.new_machine().expect("builds");
    m.run().expect("runs");
    Report::new(sc, &m)
}

/// (line, executions, thread_inst_executed, thread_inst_executed_pred_on,
/// branches, divergent_branches)
type Row = (u32, u64, u64, u64, u64, u64);

#[test]
fn seed_kernel_counters_per_source_line_match_the_hand_count() {
    let mut sc = seed_scenario();
    let map = sc.source_map.as_mut().expect("the listing has line info");
    assert_eq!(map.files.len(), 1);
    assert_eq!(map.files[0].name, "seed.cu");
    // The text comes from the scenario's side (here the corpus file); the
    // map never reads `seed.cu` from disk itself.
    assert!(map.files[0].text.is_none());
    assert!(map.set_text("tests/kernels/seed.cu", SOURCE.to_string()));
    let r = report(&sc);
    let lines = r.lines.as_ref().expect("a report with line info has lines");

    // Hand count. 3907 blocks x 8 warps = 31,256 warps of 32 lanes =
    // 1,000,192 lanes; 1,000,192 - 1,000,003 = 189 lanes are out of range.
    // The last in-range element is 1,000,002 = 31,250 x 32 + 2: warps
    // 0..31,249 are whole, warp 31,250 holds 3 in-range lanes and 29 out
    // (the one warp the bounds check splits), warps 31,251..31,255 are
    // wholly out (5 x 32 = 160; 29 + 160 = 189).
    //
    // The listing's pcs by source line (its `//## File "seed.cu", line N`):
    //   line 3: 0000 LDC R1                         1 instruction
    //   line 4: 0010 S2R .. 0040 IMAD (idx)         4
    //   line 5: 0050 ULDC, 0060 ISETP, 0070 @P0 EXIT  (idx < n)   3
    //   line 6: 0080 LDC.64 .. 00c0 FSETP (the if), 5, and 0100 FADD,
    //           0110 STG, 0120 EXIT (the `*= 2` side), 3
    //   line 7: 00d0 @!P0 FADD, 00e0 @!P0 STG (the else, predicated)   2
    //   line 9: 00f0 @!P0 EXIT                      1
    //   (0130 BRA-to-itself has no line of its own after 0120: line 6,
    //   never executed.)
    // Lines 3, 4: every warp, every lane: 31,256 x {1, 4} issues,
    //   1,000,192 x {1, 4} lanes, all on.
    // Line 5: 3 x 31,256 = 93,768 issues, 3 x 1,000,192 = 3,000,576
    //   active lanes; on: ULDC and ISETP all 1,000,192, @P0 EXIT only the
    //   189 out-of-range lanes: 2,000,384 + 189 = 2,000,573.
    // Line 6: the five pcs up to the FSETP run in the 31,251 warps left
    //   (31,250 whole + the split one), 1,000,003 lanes each, all on: the
    //   compiler predicated the if, so no branch and no lane off:
    //   5 x 31,251 = 156,255 issues, 5,000,015 lanes. After `@!P0 EXIT`
    //   only lanes with i % 4 == 3 remain: 250,000 of them (i = 3 .. 999,999),
    //   in every whole warp (8 each) but not in the split warp (i =
    //   1,000,000..1,000,002 are 0, 1, 2 mod 4): 3 x 31,250 = 93,750 issues,
    //   3 x 250,000 = 750,000 lanes. Total 250,005 issues, 5,750,015 lanes,
    //   all on.
    // Line 7: 2 x 31,251 = 62,502 issues, 2 x 1,000,003 = 2,000,006 active,
    //   on where !P0 (i % 4 != 3): 1,000,003 - 250,000 = 750,003, twice
    //   = 1,500,006.
    // Line 9: 31,251 issues, 1,000,003 active, 750,003 on.
    // No BRA or BREAK runs: branches and divergent branches are 0 everywhere.
    let want: [Row; 6] = [
        (3, 31_256, 1_000_192, 1_000_192, 0, 0),
        (4, 125_024, 4_000_768, 4_000_768, 0, 0),
        (5, 93_768, 3_000_576, 2_000_573, 0, 0),
        (6, 250_005, 5_750_015, 5_750_015, 0, 0),
        (7, 62_502, 2_000_006, 1_500_006, 0, 0),
        (9, 31_251, 1_000_003, 750_003, 0, 0),
    ];
    let got: Vec<Row> = lines
        .iter()
        .map(|l| {
            (
                l.line,
                l.executions,
                l.thread_inst_executed,
                l.thread_inst_executed_pred_on,
                l.branches,
                l.divergent_branches,
            )
        })
        .collect();
    assert_eq!(got, want);
    for l in lines {
        assert_eq!(l.file, "seed.cu");
        // The text is the corpus file's line.
        let text = SOURCE.lines().nth(l.line as usize - 1).map(str::to_string);
        assert_eq!(l.text, text);
        // SIMD efficiency = on / (32 x executions).
        let simd = l.thread_inst_executed_pred_on as f64 / (32.0 * l.executions as f64);
        assert_eq!(l.simd_efficiency, Some(simd));
    }
    // Line 5's SIMD efficiency by hand: 2,000,573 / (32 x 93,768) =
    // 2,000,573 / 3,000,576 = 0.66673...
    assert!((lines[2].simd_efficiency.unwrap_or(0.0) - 0.666_73).abs() < 1e-5);
    assert_eq!(
        lines[3].text.as_deref(),
        Some("    if (data[idx] > 0.5f) data[idx] *= 2.0f;")
    );

    // Stalls: each line's reason counts are its pcs' (the report's `pcs`
    // section, an aggregation done apart), summed.
    let pc_line = |pc: u32| match pc {
        0x00 => 3,
        0x10..=0x40 => 4,
        0x50..=0x70 => 5,
        0x80..=0xc0 | 0x100..=0x130 => 6,
        0xd0 | 0xe0 => 7,
        0xf0 => 9,
        _ => 0,
    };
    for l in lines {
        let mut sum = [0u64; 11];
        for p in r.pcs.iter().filter(|p| pc_line(p.pc) == l.line) {
            for (s, v) in sum.iter_mut().zip(p.stalls.0.0) {
                *s += v;
            }
        }
        assert_eq!(l.stalls.0.0, sum, "line {}", l.line);
        // Every issue is a `selected` warp-cycle of its pc.
        assert_eq!(l.stalls.0.0[0], l.executions, "line {}", l.line);
    }
}

#[test]
fn a_listing_without_line_info_has_no_lines_key() {
    // The same kernel from `cuobjdump -sass`, which prints no line table.
    let listing = include_str!("kernels/seed.sm_90.sass");
    let mut y = String::from(
        "name: seed without line info\nlaunch: {blocks: 1, block_dim: 32}\n\
         memory:\n  data: {type: f32, len: 32}\nargs: [data, 32]\nprogram: |\n",
    );
    for l in listing.lines() {
        if l.trim().is_empty() {
            y.push('\n');
        } else {
            let _ = writeln!(y, "  {l}");
        }
    }
    let sc = Scenario::from_text(&y, Origin::File("s.yaml".into())).expect("loads");
    assert!(sc.source_map.is_none());
    let r = report(&sc);
    assert!(r.lines.is_none());
    let v = r.to_value();
    assert!(v.get("lines").is_none());
    assert!(!warpstep::report::text::render(&r).contains("\nsource "));
}

#[test]
fn the_text_report_lists_lines_and_says_when_text_is_missing() {
    let sc = seed_scenario();
    let r = report(&sc);
    let text = warpstep::report::text::render(&r);
    // Line 7's row: 62,502 issues, sum A 2,000,006, sum P 1,500,006,
    // SIMD 1,500,006 / (32 x 62,502) = 0.74999... -> 0.750.
    let after = &text[text.find("\nsource  line").expect("the source-line table")..];
    let row = after
        .lines()
        .find(|l| l.trim_start().starts_with("7  "))
        .expect("a row for line 7");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &cols[..7],
        ["7", "62502", "2000006", "1500006", "0.750", "0", "0"]
    );
    assert!(row.ends_with("(text not available)"));
    assert!(text.contains("\n  seed.cu\n"));
    // JSON: the text is null without the source.
    let v = r.to_value();
    assert_eq!(v["lines"][4]["line"], 7);
    assert!(v["lines"][4]["text"].is_null());
}
