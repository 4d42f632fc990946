/* Where a journal entry stands, as the session view's folds read it: its place in the journal, and when it was written. */

/** The entry an event came in: `seq` orders the view's items, `at` dates them. */
export interface EntryPlace {
  readonly seq: number;
  readonly at: number;
}
