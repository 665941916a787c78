/** The consent page, and the screen's fit for the study's devices. */
import { useEffect, useState } from 'react';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import type { StudyIntro } from './api';
import { deviceProblem, type Screen } from '../../core/study/devices';
import { spokenMinutes } from '../../core/study/duration';
import { paymentSentence } from '../../core/study/paymentText';
import { Centered } from './RunScreens';

/** The window's size and pointer, kept current as it is resized or turned. */
function useScreen(): Screen {
  const read = (): Screen => ({
    width: window.innerWidth,
    height: window.innerHeight,
    finePointer: window.matchMedia('(pointer: fine)').matches,
  });
  const [screen, setScreen] = useState(read);
  useEffect(() => {
    const update = () => setScreen(read());
    window.addEventListener('resize', update);
    return () => window.removeEventListener('resize', update);
  }, []);
  return screen;
}

/**
 * The consent page. A screen the study does not allow (its `devices`) is told so in place of the
 * buttons, before any session is made; turning or enlarging the window brings them back.
 */
export function Consent({
  intro,
  onDecline,
  onAgree,
}: {
  intro: StudyIntro;
  onDecline: () => void;
  onAgree: () => void;
}) {
  const problem = deviceProblem(intro.devices, useScreen());
  return (
    <Centered main>
      <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
        <p className="text-xs uppercase tracking-wider text-slate-500">
          {intro.items} {intro.items === 1 ? 'item' : 'items'} · {spokenMinutes(intro.sessionMinutes)} at most
        </p>
        <h1 className="mb-4 mt-1 text-2xl font-semibold text-white">{intro.title}</h1>
        {intro.payment && (
          <p
            className="mb-4 rounded-lg border border-emerald-700/50 bg-emerald-950/40 px-4 py-2 text-emerald-100"
            data-testid="payment"
          >
            {paymentSentence(intro.payment)}
          </p>
        )}
        {problem ? (
          <div
            role="alert"
            data-testid="device-message"
            className="rounded-lg border border-amber-500/60 bg-amber-950/60 p-4 text-amber-100"
          >
            <p className="font-semibold">{problem}</p>
            <p className="mt-2 text-sm">Nothing has been recorded. The link to open there:</p>
            <p
              className="mt-1 select-all break-all rounded bg-slate-950 px-2 py-1.5 font-mono text-sm text-slate-100"
              data-testid="study-link"
            >
              {window.location.href}
            </p>
            <CopyLink href={window.location.href} />
          </div>
        ) : (
          <>
            <div className="max-h-[50vh] overflow-y-auto text-slate-200">
              <Markdown text={intro.consent} />
            </div>
            <div className="mt-6 flex justify-end gap-3">
              <Button onClick={onDecline}>I do not agree</Button>
              <Button tone="primary" onClick={onAgree}>
                I agree, start
              </Button>
            </div>
          </>
        )}
      </div>
    </Centered>
  );
}

/**
 * Copies the study link, to send it to the computer the study needs; where the browser refuses
 * (no clipboard access), it says how to copy the link by hand.
 */
function CopyLink({ href }: { href: string }) {
  const [result, setResult] = useState<'copied' | 'refused' | null>(null);
  const copy = () => {
    // No clipboard at all on a page served without https (other than on localhost).
    if (!navigator.clipboard) {
      setResult('refused');
      return;
    }
    navigator.clipboard.writeText(href).then(
      () => setResult('copied'),
      () => setResult('refused'),
    );
  };
  return (
    <div className="mt-3 flex flex-wrap items-center gap-3">
      <Button tone="primary" onClick={copy}>
        Copy link
      </Button>
      <span role="status" className="text-sm">
        {result === 'copied'
          ? 'Copied: paste it into a message or an email to yourself.'
          : result === 'refused'
            ? 'This browser did not allow copying: press and hold the link above, then choose Copy.'
            : ''}
      </span>
    </div>
  );
}
