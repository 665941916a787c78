import { useState } from 'react';
import { useLocation } from 'wouter';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminJson, setResearcherToken } from './auth';

/**
 * Signing out everywhere: every browser session of the signed-in person ends (this one too), as
 * when a laptop was lost; personal tokens are not sessions and stay until revoked, which the
 * confirmation says.
 */
export function SignOutEverywhere() {
  const [asking, setAsking] = useState(false);
  const [, navigate] = useLocation();
  return (
    <section aria-labelledby="everywhere-title" className="mt-8 border-t border-slate-800 pt-4">
      <h2 id="everywhere-title" className="text-base font-semibold text-white">
        Signed-in browsers
      </h2>
      <p className="mt-1 max-w-2xl text-sm text-slate-400">
        Ends your sign-in on every browser and computer at once, this one too: each asks you to sign in again from its
        next request.
      </p>
      <Button className="mt-3" onClick={() => setAsking(true)}>
        Sign out everywhere
      </Button>
      {asking && (
        <ConfirmDialog
          title="Sign out everywhere?"
          confirmLabel="Sign out everywhere"
          tone="danger"
          onConfirm={async () => {
            await adminJson('/api/auth/signout-everywhere', { method: 'POST' });
            setResearcherToken(null);
            navigate('/signin');
          }}
          onClose={() => setAsking(false)}
        >
          <p>
            Every browser where you are signed in is signed out. Your personal tokens keep working until you revoke them
            above.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
