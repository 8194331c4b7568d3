// The lines the CodeBuddy extractor parses: those that may carry usage, a
// user's prompt or a title (README.md "What counts"). Byte strings that do not
// depend on the writer's spacing.
export const MARKERS = ['"rawUsage"', '"usage"', '"user"', '"ai-title"', '"topic"'] as const;
