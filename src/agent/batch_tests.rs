//! Batch planning: consecutive reads share a batch, every other call runs alone.

use super::plan_batches;

#[test]
fn batches_group_consecutive_reads_and_isolate_writes() {
    assert_eq!(plan_batches(&[]), Vec::<std::ops::Range<usize>>::new());
    assert_eq!(plan_batches(&[true, true, true]), vec![0..3]);
    assert_eq!(plan_batches(&[false, false]), vec![0..1, 1..2]);
    assert_eq!(
        plan_batches(&[true, true, false, true, false, false, true, true]),
        vec![0..2, 2..3, 3..4, 4..5, 5..6, 6..8]
    );
}
