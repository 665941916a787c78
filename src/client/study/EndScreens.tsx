/** The screens that end the study for the participant: declined, withdrawn, the debrief. */
import { useEffect } from 'react';
import { Markdown } from '../ui/Markdown';
import type { StudyIntro } from './api';
import { spokenMinutes } from '../../core/study/duration';
import { Centered } from './RunScreens';

/** An end page's way back to the recruitment platform: after 5 s (the page offers a link meanwhile). */
function useRedirectSoon(url: string | null, seconds = 5): void {
  useEffect(() => {
    if (!url) return;
    const id = setTimeout(() => window.location.assign(url), seconds * 1000);
    return () => clearTimeout(id);
  }, [url, seconds]);
}

/** The end for a participant who did not consent: nothing of theirs is stored. */
export function Declined({ intro }: { intro: StudyIntro }) {
  const { message, code, redirectUrl } = intro.decline;
  useRedirectSoon(redirectUrl ?? null);
  return (
    <EndCard testId="declined" title="You chose not to take part">
      <div className="mt-3 text-slate-300">
        {message ? <Markdown text={message} /> : <p>Nothing about you has been recorded. You may close this page.</p>}
      </div>
      {code && <PlatformCode lead="If the study platform asks for a code, use" code={code} testId="decline-code" />}
      {redirectUrl && <RedirectNote url={redirectUrl} now="go now" />}
    </EndCard>
  );
}

/** The end for a participant who withdrew: the study's message and code, if it has them. */
export function Withdrawn({ message, code }: { message: string | null; code: string | null }) {
  return (
    <EndCard testId="withdrawn" title="You have withdrawn from the study">
      <div className="mt-3 text-slate-300">
        {message ? (
          <Markdown text={message} />
        ) : (
          <p>Thank you for your time. Nothing more will be recorded; you may close this page.</p>
        )}
      </div>
      {code && <PlatformCode lead="If the study platform asks for a code, use" code={code} testId="withdraw-code" />}
    </EndCard>
  );
}

/** The card of a screen that ends the study for the participant. */
function EndCard({ testId, title, children }: { testId: string; title: string; children: React.ReactNode }) {
  return (
    <Centered main>
      <div
        className="w-full max-w-xl rounded-xl border border-slate-800 bg-slate-900/70 p-8 text-center"
        data-testid={testId}
      >
        <h1 className="text-2xl font-semibold text-white">{title}</h1>
        {children}
      </div>
    </Centered>
  );
}

/** A code the participant gives the study platform, easy to select; green when it is the completion code. */
function PlatformCode({
  lead,
  code,
  testId,
  completion = false,
}: {
  lead: string;
  code: string;
  testId: string;
  completion?: boolean;
}) {
  return (
    <>
      <p className="mt-4 text-slate-300">{lead}</p>
      <p
        className={`mt-2 select-all rounded-lg bg-slate-950 py-3 font-mono text-2xl tracking-widest ${completion ? 'text-emerald-300' : 'text-amber-200'}`}
        data-testid={testId}
      >
        {code}
      </p>
    </>
  );
}

/** Says the page will send the participant back to the study platform, with a link to go at once. */
function RedirectNote({ url, now, seconds }: { url: string; now: string; seconds?: number }) {
  return (
    <p className="mt-4 text-sm text-slate-400" data-testid="redirect-note" data-redirect-url={url}>
      You will be taken back {seconds === undefined ? 'in a few seconds' : seconds === 0 ? 'now' : `in ${seconds} s`},
      or{' '}
      <a className="text-sky-300 underline" href={url}>
        {now}
      </a>
      .
    </p>
  );
}

export function Debrief({
  code,
  redirectUrl,
  redirectAfterSeconds,
  timeUpMinutes,
}: {
  code: string;
  redirectUrl: string | null;
  redirectAfterSeconds: number;
  timeUpMinutes: number | null;
}) {
  useRedirectSoon(redirectUrl, redirectAfterSeconds);
  return (
    <EndCard testId="debrief" title={timeUpMinutes === null ? 'Thank you!' : 'Time is up. Thank you!'}>
      {timeUpMinutes !== null && (
        <p className="mt-3 text-slate-300" data-testid="session-time-up">
          The study allows {spokenMinutes(timeUpMinutes)} in all and that time is spent, so it ends here. You do not
          need to do anything more.
        </p>
      )}
      <PlatformCode
        lead="Everything you did has been saved. Your completion code is"
        code={code}
        testId="completion-code"
        completion
      />
      {redirectUrl && <RedirectNote url={redirectUrl} now="continue now" seconds={redirectAfterSeconds} />}
    </EndCard>
  );
}
