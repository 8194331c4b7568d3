// The lines the JSONL scanner parses (Harness.scanMarkers): only turn_completed updates carry usage.
export const MARKERS = ['"turn_completed"'];
