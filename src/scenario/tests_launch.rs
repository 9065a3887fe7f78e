//! `launch:` with 2-D and 3-D shapes: the totals and shapes worked out by
//! hand, and the errors a bad shape gives.

use super::*;
use crate::engine::Dim3;

fn load(text: &str) -> Result<Scenario, String> {
    Scenario::from_text(text, Origin::Builtin("test".into())).map_err(|e| e.to_string())
}

#[test]
fn shapes_give_totals_and_dimensions() {
    let s = load("name: 2d\nlaunch: {blocks: [4, 4], block_dim: [32, 8]}\nprogram: EXIT\n")
        .expect("loads");
    // 4 x 4 blocks of 32 x 8 threads: 16 blocks of 256.
    assert_eq!((s.launch.blocks, s.launch.block_dim), (16, 256));
    assert_eq!(s.launch.block_shape, Some(Dim3 { x: 32, y: 8, z: 1 }));
    assert_eq!(s.launch.grid_shape, Some(Dim3 { x: 4, y: 4, z: 1 }));
    let l = Launch::from(s.launch);
    assert_eq!((l.block_xyz(), l.grid_xyz()), ([32, 8, 1], [4, 4, 1]));
    // 3-D block, 1-D grid given as a number.
    let s = load("name: 3d\nlaunch: {blocks: 2, block_dim: [4, 2, 3]}\nprogram: EXIT\n")
        .expect("loads");
    assert_eq!((s.launch.blocks, s.launch.block_dim), (2, 24));
    assert_eq!(s.launch.grid_shape, None);
    assert_eq!(Launch::from(s.launch).grid_xyz(), [2, 1, 1]);
    // Numbers only: no shapes, as before.
    let s = load("name: 1d\nlaunch: {blocks: 3, block_dim: 40}\nprogram: EXIT\n").expect("loads");
    assert_eq!((s.launch.block_shape, s.launch.grid_shape), (None, None));
}

#[test]
fn bad_shapes_are_located_errors() {
    let e = load("name: x\nlaunch: {blocks: 1, block_dim: [32, 8, 1, 2]}\nprogram: EXIT\n")
        .expect_err("four dimensions");
    assert!(e.contains("has 4 dimensions"), "{e}");
    assert!(e.contains("test:2:32"), "located at line 2, column 32: {e}");
    let e = load("name: x\nlaunch: {blocks: 1, block_dim: [32, 0]}\nprogram: EXIT\n")
        .expect_err("a zero dimension");
    assert!(e.contains("launch.block_dim"), "{e}");
    // 2^15 x 2^15 x 2 = 2^31 > 2^30 threads per block.
    let e = load("name: x\nlaunch: {blocks: 1, block_dim: [32768, 32768, 2]}\nprogram: EXIT\n")
        .expect_err("too many threads");
    assert!(e.contains("2147483648 in all"), "{e}");
}
