// Rust names for profkit's demangling tests: a generic struct with a
// closure in its method, a trait impl, a const generic, a nested
// function. Built twice, legacy and v0 mangling (testdata/README.md).
use std::hint::black_box;

struct GcBox<T> {
    value: T,
}

impl<T: Copy + Into<u64>> GcBox<T> {
    #[inline(never)]
    fn new(value: T, rounds: u64) -> (Self, u64) {
        let spin = |n: u64| -> u64 {
            let mut acc = value.into();
            for i in 0..n {
                acc = black_box(acc.wrapping_mul(6364136223846793005).wrapping_add(i));
            }
            acc
        };
        // called through a vtable: the closure keeps a symbol of its own
        let spin: &dyn Fn(u64) -> u64 = black_box(&spin);
        let sum = spin(rounds);
        (GcBox { value }, sum)
    }
}

trait Work {
    fn work(&self, n: u64) -> u64;
}

impl Work for GcBox<u32> {
    #[inline(never)]
    fn work(&self, n: u64) -> u64 {
        let mut acc = self.value as u64;
        for i in 0..n {
            acc = black_box(acc ^ (acc << 7) ^ i);
        }
        acc
    }
}

#[inline(never)]
fn checksum<const N: usize>(bytes: &[u8; N], rounds: u64) -> u64 {
    let mut acc = 0u64;
    for r in 0..rounds {
        for b in bytes.iter() {
            acc = black_box(acc.rotate_left(5) ^ (*b as u64) ^ r);
        }
    }
    acc
}

fn main() {
    let rounds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000_000);
    let (b, s) = GcBox::<u32>::new(7, rounds);
    let w = b.work(rounds);
    let c = checksum(&[1u8, 2, 3, 4, 5, 6, 7, 8], rounds / 8);
    println!("{}", s ^ w ^ c);
}
