/** What each field of the study editor is called, for its problems: "Study title", "Item 2, Task". */
/** What a field is called on this page, for the summary of problems above the Save button. */
const FIELD_NAMES: Record<string, string> = {
  id: 'Study id',
  title: 'Study title',
  consent: 'Consent',
  instructions: 'Instructions',
  items: 'Items',
  trials: 'Trials per test input',
  'limits.itemSoftMinutes': 'Soft limit per item',
  'limits.itemHardMinutes': 'Hard limit per item',
  'limits.sessionMinutes': 'Session limit',
  'completion.code': 'Completion code',
  'completion.redirectUrl': 'Redirect URL',
  'completion.redirectAfterSeconds': 'Seconds before sending participants on',
  'prolific.studyId': 'Prolific study id',
  'prolific.afterReturn': 'A participant who returned and comes back',
  'decline.code': 'Code for those who do not consent',
  'decline.message': 'Message for those who do not consent',
  'campaign.id': 'Campaign id',
  'payment.currency': 'Currency',
  'payment.fee': 'Fixed fee',
  'payment.bonus.perSolve': 'Bonus per candidate solved',
  'payment.bonus.perLevel': 'Bonus per game level completed',
  'payment.bonus.max': 'Most bonus per session',
};
const ITEM_FIELD_NAMES: Record<string, string> = {
  id: 'Item id',
  task: 'Task',
  collection: 'Collection',
  tests: 'Test inputs',
  game: 'Game',
  seed: 'Seed',
  title: 'Title',
  markdown: 'Page text',
  question: 'Question',
  questions: 'Questions',
  softMinutes: 'Soft limit',
  hardMinutes: 'Hard limit',
  'describe.prompt': 'Description prompt',
  candidates: 'Candidates',
  draw: 'Candidates per participant',
  target: 'Target per candidate',
  minMinutesLeft: 'Minimum minutes left',
};

/** Where a problem is, in the page's own words: "Study title", "Item 2, Task". */
export function fieldName(path: string): string {
  const item = /^items\[(\d+)\](?:\.(.*))?$/.exec(path);
  if (!item) return FIELD_NAMES[path] ?? path;
  const field = item[2] ?? '';
  const name = ITEM_FIELD_NAMES[field] ?? ITEM_FIELD_NAMES[field.split(/[.[]/)[0]] ?? field;
  return `Item ${Number(item[1]) + 1}${name ? `, ${name}` : ''}`;
}
