;; XXH64 (xxHash, 64-bit; the reference algorithm, https://github.com/Cyan4973/xxHash
;; doc/xxhash_spec.md), for the digests that tell a run whether anything changed
;; since the last (memo keys, source fingerprints, discovery records). It runs at
;; native speed from its first call, where the same function in JavaScript runs in
;; V8's interpreter for the whole of a short run, and it spares a warm run the
;; loading of node:crypto. Assembled by scripts/build-wasm.mjs into xxh64.wasm.ts.
;;
;; Memory: the caller writes the input at any offset and reads 16 bytes of output
;; where it asks (hash128).
(module
  (memory (export "memory") 1)

  (global $P1 i64 (i64.const 0x9E3779B185EBCA87))
  (global $P2 i64 (i64.const 0xC2B2AE3D27D4EB4F))
  (global $P3 i64 (i64.const 0x165667B19E3779F9))
  (global $P4 i64 (i64.const 0x85EBCA77C2B2AE63))
  (global $P5 i64 (i64.const 0x27D4EB2F165667C5))

  (func $round (param $acc i64) (param $input i64) (result i64)
    (i64.mul
      (i64.rotl (i64.add (local.get $acc) (i64.mul (local.get $input) (global.get $P2))) (i64.const 31))
      (global.get $P1)))

  (func $merge (param $acc i64) (param $val i64) (result i64)
    (i64.add
      (i64.mul (i64.xor (local.get $acc) (call $round (i64.const 0) (local.get $val))) (global.get $P1))
      (global.get $P4)))

  ;; XXH64 of len bytes at ptr with seed.
  (func $xxh64 (export "xxh64") (param $ptr i32) (param $len i32) (param $seed i64) (result i64)
    (local $p i32) (local $end i32) (local $limit i32) (local $h i64)
    (local $v1 i64) (local $v2 i64) (local $v3 i64) (local $v4 i64)
    (local.set $p (local.get $ptr))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (if (i32.ge_u (local.get $len) (i32.const 32))
      (then
        (local.set $v1 (i64.add (i64.add (local.get $seed) (global.get $P1)) (global.get $P2)))
        (local.set $v2 (i64.add (local.get $seed) (global.get $P2)))
        (local.set $v3 (local.get $seed))
        (local.set $v4 (i64.sub (local.get $seed) (global.get $P1)))
        (local.set $limit (i32.sub (local.get $end) (i32.const 32)))
        (loop $stripes
          (local.set $v1 (call $round (local.get $v1) (i64.load (local.get $p))))
          (local.set $v2 (call $round (local.get $v2) (i64.load offset=8 (local.get $p))))
          (local.set $v3 (call $round (local.get $v3) (i64.load offset=16 (local.get $p))))
          (local.set $v4 (call $round (local.get $v4) (i64.load offset=24 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 32)))
          (br_if $stripes (i32.le_u (local.get $p) (local.get $limit))))
        (local.set $h
          (i64.add
            (i64.add (i64.rotl (local.get $v1) (i64.const 1)) (i64.rotl (local.get $v2) (i64.const 7)))
            (i64.add (i64.rotl (local.get $v3) (i64.const 12)) (i64.rotl (local.get $v4) (i64.const 18)))))
        (local.set $h (call $merge (local.get $h) (local.get $v1)))
        (local.set $h (call $merge (local.get $h) (local.get $v2)))
        (local.set $h (call $merge (local.get $h) (local.get $v3)))
        (local.set $h (call $merge (local.get $h) (local.get $v4))))
      (else
        (local.set $h (i64.add (local.get $seed) (global.get $P5)))))
    (local.set $h (i64.add (local.get $h) (i64.extend_i32_u (local.get $len))))
    ;; 8-byte words left
    (block $done8
      (loop $words
        (br_if $done8 (i32.gt_u (i32.add (local.get $p) (i32.const 8)) (local.get $end)))
        (local.set $h (i64.xor (local.get $h) (call $round (i64.const 0) (i64.load (local.get $p)))))
        (local.set $h (i64.add (i64.mul (i64.rotl (local.get $h) (i64.const 27)) (global.get $P1)) (global.get $P4)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $words)))
    ;; a 4-byte word
    (if (i32.le_u (i32.add (local.get $p) (i32.const 4)) (local.get $end))
      (then
        (local.set $h (i64.xor (local.get $h) (i64.mul (i64.load32_u (local.get $p)) (global.get $P1))))
        (local.set $h (i64.add (i64.mul (i64.rotl (local.get $h) (i64.const 23)) (global.get $P2)) (global.get $P3)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))))
    ;; single bytes
    (block $done1
      (loop $bytes
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $h (i64.xor (local.get $h) (i64.mul (i64.load8_u (local.get $p)) (global.get $P5))))
        (local.set $h (i64.mul (i64.rotl (local.get $h) (i64.const 11)) (global.get $P1)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    ;; avalanche
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))) (global.get $P2)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))) (global.get $P3)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  ;; Two XXH64 of the same bytes with different seeds (0 and 0x9E3779B185EBCA87),
  ;; as 16 little-endian bytes at out: a 128-bit digest.
  (func (export "hash128") (param $ptr i32) (param $len i32) (param $out i32)
    (i64.store (local.get $out) (call $xxh64 (local.get $ptr) (local.get $len) (i64.const 0)))
    (i64.store offset=8 (local.get $out) (call $xxh64 (local.get $ptr) (local.get $len) (global.get $P1))))
)
