export function TaskBrowserPage() {
  return <div className="p-6">Task browser</div>;
}
