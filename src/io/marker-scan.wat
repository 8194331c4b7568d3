;; Line and usage-marker scanner, 16 bytes at a time (WebAssembly SIMD).
;;
;; Finds every newline of a chunk and, for each line segment between them,
;; whether one of the harness's markers lies entirely inside it. This is the
;; hot loop of every JSONL extractor: about 90% of transcript bytes are in
;; lines without usage (prompts, tool output, base64 images), and each of
;; those bytes must be looked at once to prove it.
;;
;; Candidate filter: a marker m can start at byte p only if
;; chunk[p] = m[0] and chunk[p + len(m) - 1] = m[len(m) - 1]. One "probe" per
;; distinct (first byte, last byte, distance) triple tests 16 positions at a
;; time; the rare positions that pass are compared byte by byte (verify).
;; The markers are JSON keys or type names, so both end bytes are usually
;; '"', and a pair of quotes at exactly the marker's distance is rare in
;; prose and absent from base64.
;;
;; Memory layout (fixed size: never grows, so JavaScript views stay valid):
;;   0      i32  number of probes (at most 8)
;;   4      i32  number of markers (at most 16)
;;   8      i32  out: 1 when a marker lies in the segment after the last newline
;;   64     probes, 48 bytes each: v128 first byte x16, v128 last byte x16, i32 distance
;;   1024   markers, 64 bytes each: i32 length (1..60), then the bytes
;;   the caller's input, segment ends (u32 each) and flags (u8 each) anywhere
;;   after 4096, with 128 bytes readable past the input (loads run ahead).
(module
  (memory (export "memory") 112)

  ;; 1 when one of the markers starts at $p and ends before $end.
  (func $verify (param $p i32) (param $end i32) (result i32)
    (local $m i32) (local $nm i32) (local $mb i32) (local $len i32) (local $q i32)
    (local.set $nm (i32.load (i32.const 4)))
    (local.set $mb (i32.const 1024))
    (block $none
      (loop $markers
        (br_if $none (i32.ge_u (local.get $m) (local.get $nm)))
        (local.set $len (i32.load (local.get $mb)))
        (if (i32.le_u (i32.add (local.get $p) (local.get $len)) (local.get $end))
          (then
            (local.set $q (i32.const 0))
            (block $differs
              (loop $bytes
                (if (i32.ge_u (local.get $q) (local.get $len)) (then (return (i32.const 1))))
                (br_if $differs
                  (i32.ne
                    (i32.load8_u (i32.add (local.get $p) (local.get $q)))
                    (i32.load8_u offset=4 (i32.add (local.get $mb) (local.get $q)))))
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                (br $bytes)))))
        (local.set $m (i32.add (local.get $m) (i32.const 1)))
        (local.set $mb (i32.add (local.get $mb) (i32.const 64)))
        (br $markers)))
    (i32.const 0))

  ;; Scans [$ptr, $ptr + $len). For the k-th newline found, writes its offset
  ;; (from $ptr) to $ends[k] and to $flags[k] whether a marker lies in the
  ;; segment that it ends (from the previous newline, or from $ptr). Returns
  ;; the number of newlines; the flag of the segment after the last one is
  ;; left at address 8.
  (func (export "scan") (param $ptr i32) (param $len i32) (param $ends i32) (param $flags i32) (result i32)
    (local $i i32) (local $end i32) (local $n i32) (local $flag i32) (local $np i32)
    (local $v v128) (local $c v128) (local $nl i32) (local $cm i32) (local $bits i32)
    (local $j i32) (local $k i32) (local $pb i32) (local $keep i32)
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (local.set $np (i32.load (i32.const 0)))
    (local.set $i (local.get $ptr))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $nl
          (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
        (local.set $c (v128.const i64x2 0 0))
        (local.set $k (i32.const 0))
        (local.set $pb (i32.const 64))
        (block $probed
          (loop $probes
            (br_if $probed (i32.ge_u (local.get $k) (local.get $np)))
            (local.set $c
              (v128.or (local.get $c)
                (v128.and
                  (i8x16.eq (local.get $v) (v128.load (local.get $pb)))
                  (i8x16.eq
                    (v128.load (i32.add (local.get $i) (i32.load offset=32 (local.get $pb))))
                    (v128.load offset=16 (local.get $pb))))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (local.set $pb (i32.add (local.get $pb) (i32.const 48)))
            (br $probes)))
        (local.set $cm (i8x16.bitmask (local.get $c)))
        (local.set $bits (i32.or (local.get $nl) (local.get $cm)))
        (if (local.get $bits)
          (then
            ;; The last block may run past the input: drop those positions.
            (if (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
              (then
                (local.set $keep (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $i))) (i32.const 1)))
                (local.set $nl (i32.and (local.get $nl) (local.get $keep)))
                (local.set $bits (i32.and (local.get $bits) (local.get $keep)))))
            ;; Newlines and candidates in the order they occur.
            (block $handled
              (loop $each
                (br_if $handled (i32.eqz (local.get $bits)))
                (local.set $j (i32.ctz (local.get $bits)))
                (if (i32.and (local.get $nl) (i32.shl (i32.const 1) (local.get $j)))
                  (then
                    (i32.store (i32.add (local.get $ends) (i32.shl (local.get $n) (i32.const 2)))
                      (i32.sub (i32.add (local.get $i) (local.get $j)) (local.get $ptr)))
                    (i32.store8 (i32.add (local.get $flags) (local.get $n)) (local.get $flag))
                    (local.set $n (i32.add (local.get $n) (i32.const 1)))
                    (local.set $flag (i32.const 0)))
                  (else
                    (if (i32.eqz (local.get $flag))
                      (then (local.set $flag (call $verify (i32.add (local.get $i) (local.get $j)) (local.get $end)))))))
                (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                (br $each)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (i32.store (i32.const 8) (local.get $flag))
    (local.get $n))

  ;; The same scan, specialized for marker sets whose markers all begin and
  ;; end with one byte $q (JSON keys and type names: '"'), with up to four
  ;; distinct lengths ($d1..$d4 = length - 1; repeat one to fill). A position
  ;; is a candidate when it and one of the four positions after it hold $q:
  ;; about a third of the general loop's work per 16 bytes, since the probe
  ;; table is not read and the first-byte test is shared.
  (func (export "scan_quoted") (param $ptr i32) (param $len i32) (param $ends i32) (param $flags i32)
                                (param $q i32) (param $d1 i32) (param $d2 i32) (param $d3 i32) (param $d4 i32) (result i32)
    (local $i i32) (local $end i32) (local $n i32) (local $flag i32)
    (local $v v128) (local $vq v128) (local $vnl v128) (local $nl i32) (local $bits i32)
    (local $j i32) (local $keep i32)
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (local.set $vq (i8x16.splat (local.get $q)))
    (local.set $vnl (i8x16.splat (i32.const 10)))
    (local.set $i (local.get $ptr))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $nl (i8x16.bitmask (i8x16.eq (local.get $v) (local.get $vnl))))
        (local.set $bits
          (i32.or (local.get $nl)
            (i8x16.bitmask
              (v128.and
                (i8x16.eq (local.get $v) (local.get $vq))
                (v128.or
                  (v128.or
                    (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d1))) (local.get $vq))
                    (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d2))) (local.get $vq)))
                  (v128.or
                    (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d3))) (local.get $vq))
                    (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d4))) (local.get $vq))))))))
        (if (local.get $bits)
          (then
            (if (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
              (then
                (local.set $keep (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $i))) (i32.const 1)))
                (local.set $nl (i32.and (local.get $nl) (local.get $keep)))
                (local.set $bits (i32.and (local.get $bits) (local.get $keep)))))
            (block $handled
              (loop $each
                (br_if $handled (i32.eqz (local.get $bits)))
                (local.set $j (i32.ctz (local.get $bits)))
                (if (i32.and (local.get $nl) (i32.shl (i32.const 1) (local.get $j)))
                  (then
                    (i32.store (i32.add (local.get $ends) (i32.shl (local.get $n) (i32.const 2)))
                      (i32.sub (i32.add (local.get $i) (local.get $j)) (local.get $ptr)))
                    (i32.store8 (i32.add (local.get $flags) (local.get $n)) (local.get $flag))
                    (local.set $n (i32.add (local.get $n) (i32.const 1)))
                    (local.set $flag (i32.const 0)))
                  (else
                    (if (i32.eqz (local.get $flag))
                      (then (local.set $flag (call $verify (i32.add (local.get $i) (local.get $j)) (local.get $end)))))))
                (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                (br $each)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (i32.store (i32.const 8) (local.get $flag))
    (local.get $n))

  ;; The quoted scan with a tighter candidate test and a fast skip, for
  ;; marker sets with at most four distinct (length, second byte) pairs
  ;; ($d1..$d4 = length - 1, $s1..$s4 = the byte after the opening quote;
  ;; repeat a pair to fill). A position is a candidate when it holds $q and,
  ;; for one pair, the next byte is its second byte and the byte at its
  ;; distance is $q. In JSON a quote at the right distance alone passed about
  ;; every hundredth byte (keys like "model" and "speed" for "usage"), each
  ;; candidate a call to $verify; with the second byte, Claude Code's
  ;; candidates are its markers, Codex's one in five. And 64 bytes without a
  ;; quote or a newline (half of the transcript bytes: base64, long text) are
  ;; passed over with one test.
  (func (export "scan_pairs") (param $ptr i32) (param $len i32) (param $ends i32) (param $flags i32)
                              (param $q i32) (param $d1 i32) (param $d2 i32) (param $d3 i32) (param $d4 i32)
                              (param $s1 i32) (param $s2 i32) (param $s3 i32) (param $s4 i32) (result i32)
    (local $i i32) (local $end i32) (local $n i32) (local $flag i32)
    (local $v v128) (local $v1 v128) (local $vq v128) (local $vnl v128) (local $nl i32) (local $bits i32)
    (local $j i32) (local $keep i32) (local $stop i32)
    (local $vs1 v128) (local $vs2 v128) (local $vs3 v128) (local $vs4 v128)
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (local.set $vq (i8x16.splat (local.get $q)))
    (local.set $vnl (i8x16.splat (i32.const 10)))
    (local.set $vs1 (i8x16.splat (local.get $s1)))
    (local.set $vs2 (i8x16.splat (local.get $s2)))
    (local.set $vs3 (i8x16.splat (local.get $s3)))
    (local.set $vs4 (i8x16.splat (local.get $s4)))
    (local.set $i (local.get $ptr))
    (block $done
      (loop $super
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        ;; 64 whole bytes of input without $q or a newline: nothing in them.
        (if (i32.le_u (i32.add (local.get $i) (i32.const 64)) (local.get $end))
          (then
            (if (i32.eqz (v128.any_true
                  (v128.or
                    (v128.or
                      (v128.or
                        (i8x16.eq (local.tee $v (v128.load (local.get $i))) (local.get $vq))
                        (i8x16.eq (local.get $v) (local.get $vnl)))
                      (v128.or
                        (i8x16.eq (local.tee $v (v128.load offset=16 (local.get $i))) (local.get $vq))
                        (i8x16.eq (local.get $v) (local.get $vnl))))
                    (v128.or
                      (v128.or
                        (i8x16.eq (local.tee $v (v128.load offset=32 (local.get $i))) (local.get $vq))
                        (i8x16.eq (local.get $v) (local.get $vnl)))
                      (v128.or
                        (i8x16.eq (local.tee $v (v128.load offset=48 (local.get $i))) (local.get $vq))
                        (i8x16.eq (local.get $v) (local.get $vnl)))))))
              (then
                (local.set $i (i32.add (local.get $i) (i32.const 64)))
                (br $super)))))
        ;; Else these 64 bytes (or what is left) 16 at a time.
        (local.set $stop (i32.add (local.get $i) (i32.const 64)))
        (if (i32.gt_u (local.get $stop) (local.get $end)) (then (local.set $stop (local.get $end))))
        (loop $blocks
          (local.set $v (v128.load (local.get $i)))
          (local.set $v1 (v128.load offset=1 (local.get $i)))
          (local.set $nl (i8x16.bitmask (i8x16.eq (local.get $v) (local.get $vnl))))
          (local.set $bits
            (i32.or (local.get $nl)
              (i8x16.bitmask
                (v128.and
                  (i8x16.eq (local.get $v) (local.get $vq))
                  (v128.or
                    (v128.or
                      (v128.and
                        (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d1))) (local.get $vq))
                        (i8x16.eq (local.get $v1) (local.get $vs1)))
                      (v128.and
                        (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d2))) (local.get $vq))
                        (i8x16.eq (local.get $v1) (local.get $vs2))))
                    (v128.or
                      (v128.and
                        (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d3))) (local.get $vq))
                        (i8x16.eq (local.get $v1) (local.get $vs3)))
                      (v128.and
                        (i8x16.eq (v128.load (i32.add (local.get $i) (local.get $d4))) (local.get $vq))
                        (i8x16.eq (local.get $v1) (local.get $vs4)))))))))
          (if (local.get $bits)
            (then
              (if (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
                (then
                  (local.set $keep (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $i))) (i32.const 1)))
                  (local.set $nl (i32.and (local.get $nl) (local.get $keep)))
                  (local.set $bits (i32.and (local.get $bits) (local.get $keep)))))
              (block $handled
                (loop $each
                  (br_if $handled (i32.eqz (local.get $bits)))
                  (local.set $j (i32.ctz (local.get $bits)))
                  (if (i32.and (local.get $nl) (i32.shl (i32.const 1) (local.get $j)))
                    (then
                      (i32.store (i32.add (local.get $ends) (i32.shl (local.get $n) (i32.const 2)))
                        (i32.sub (i32.add (local.get $i) (local.get $j)) (local.get $ptr)))
                      (i32.store8 (i32.add (local.get $flags) (local.get $n)) (local.get $flag))
                      (local.set $n (i32.add (local.get $n) (i32.const 1)))
                      (local.set $flag (i32.const 0)))
                    (else
                      (if (i32.eqz (local.get $flag))
                        (then (local.set $flag (call $verify (i32.add (local.get $i) (local.get $j)) (local.get $end)))))))
                  (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                  (br $each)))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $blocks (i32.lt_u (local.get $i) (local.get $stop))))
        (br $super)))
    (i32.store (i32.const 8) (local.get $flag))
    (local.get $n)))
