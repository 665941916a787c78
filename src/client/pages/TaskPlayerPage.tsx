export function TaskPlayerPage() {
  return <div className="p-6">Player</div>;
}
