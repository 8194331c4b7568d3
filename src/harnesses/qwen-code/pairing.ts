// One API call, two records (README.md "One call, two records"): Qwen Code
// writes a call's usage as an `api_response` telemetry record when its stream
// ends (loggingContentGenerator.ts → loggers.ts logApiResponse) and, for a
// call of the main conversation, again as the usageMetadata of the assistant
// record written after it (chatRecordingService.ts recordAssistantTurn). The
// two carry the same figures (ApiResponseEvent copies usageMetadata field by
// field). Whichever of the two is read first counts the call; the other, with
// the same figures within a few lines, is the same call and is not counted.

/** The figures that identify a call's usage: prompt, candidates, cached, thoughts. */
export type Figures = string;

export const figures = (prompt: number, candidates: number, cached: number, thoughts: number): Figures =>
  `${prompt}:${candidates}:${cached}:${thoughts}`;

/** A record of a call counted whose twin has not been read yet: [figures, line]. */
type Open = [Figures, number];

/** How far apart (in lines) a call's two records may be; the assistant record follows within a few. */
export const PAIR_WINDOW_LINES = 200;
/** Open records kept per kind (a read state that stays small). */
const MAX_OPEN = 32;

export interface PairState {
  telemetry: Open[];
  assistant: Open[];
}

export class CallPairs {
  private readonly telemetry: Open[];
  private readonly assistant: Open[];

  constructor(state: PairState | null) {
    this.telemetry = state ? [...state.telemetry] : [];
    this.assistant = state ? [...state.assistant] : [];
  }

  /** An api_response with these figures at `line`: true when it is the twin of an assistant record already counted. */
  telemetrySeen(f: Figures, line: number): boolean {
    return this.take(this.assistant, f, line) || (this.open(this.telemetry, f, line), false);
  }

  /** Assistant usage with these figures at `line`: true when its api_response was already counted. */
  assistantSeen(f: Figures, line: number): boolean {
    return this.take(this.telemetry, f, line) || (this.open(this.assistant, f, line), false);
  }

  toState(): PairState {
    return { telemetry: [...this.telemetry], assistant: [...this.assistant] };
  }

  /** Removes and reports the nearest open record with the same figures within the window. */
  private take(list: Open[], f: Figures, line: number): boolean {
    for (let i = list.length - 1; i >= 0; i--) {
      const [g, at] = list[i]!;
      if (line - at > PAIR_WINDOW_LINES) break;
      if (g === f) {
        list.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  private open(list: Open[], f: Figures, line: number): void {
    list.push([f, line]);
    while (list.length > MAX_OPEN || (list.length && line - list[0]![1] > PAIR_WINDOW_LINES)) list.shift();
  }
}
