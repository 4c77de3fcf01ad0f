// A match inside the message text: its value and where it sits. Shared by the extractors
// (extract.ts and its helpers), in its own file so they need not import each other.
export type Found<T> = { value: T; index: number; end: number };
