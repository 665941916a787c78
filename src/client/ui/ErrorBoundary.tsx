import { Component, type ReactNode } from 'react';

/** Shows a failure of one page as a message with a way out, instead of a blank screen. */
export class ErrorBoundary extends Component<
  { children: ReactNode; resetKey: string },
  { error: Error | null; key: string }
> {
  override state: { error: Error | null; key: string } = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { error: Error | null; key: string }) {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div role="alert" className="m-6 max-w-2xl rounded-lg border border-rose-500/50 bg-rose-950/60 p-4 text-rose-100">
        <p className="font-semibold">This page failed to display.</p>
        <p className="mt-1 font-mono text-sm">{this.state.error.message}</p>
        <p className="mt-2 text-sm">
          Your logged actions are safe in this browser. Reload the page, or go back to the{' '}
          <a className="underline" href="/">
            task browser
          </a>
          .
        </p>
      </div>
    );
  }
}
