/** A collection's id from its name, for task and question collections alike: lower case, `-` between words. */
export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'tasks'
  );
}
