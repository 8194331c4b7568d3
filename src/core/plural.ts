/** `1 response`, `2 responses`: a count and its noun, singular for exactly 1 (a count may come from SQL as a string). */
export function counted(n: number | string, one: string, many = `${one}s`): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}
