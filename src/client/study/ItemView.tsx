/** One item of a running study: its clock and limits, then the view of its kind. */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { games } from '../../games';
import { QuestionItemView } from './QuestionItemView';
import { SurveyItemView } from './SurveyItemView';
import { Button } from '../ui/Button';
import { Markdown } from '../ui/Markdown';
import type { SessionItem } from './api';
import { spokenMinutes } from '../../core/study/duration';
import { pausedWithin } from '../../core/study/pauses';
import { type Running, itemHistory } from './running';
import { Centered } from './RunScreens';
import { LeaveItem } from './LeaveItem';
import { TaskItemView } from './TaskItemView';
import { GameItemView } from './GameItemView';
import { formatClock } from './budget';

export function ItemView({
  run,
  item,
  onNext,
  showTimeLeft,
}: {
  run: Running;
  item: SessionItem;
  onNext: (reason: string) => void;
  showTimeLeft: boolean;
}) {
  const { outbox, view, record } = run;
  const resume = useMemo(() => itemHistory(run.history, item.id), [run.history, item.id]);
  // The item's `item.start` was logged when the participant entered it (`enterItem`).
  const [startT] = useState(() => resume[0]?.t ?? run.entered.get(item.id) ?? outbox.now());
  // The item's clock stops during a proctor's break, as the server's does.
  const spent = useCallback(() => {
    const now = outbox.now();
    return now - startT - pausedWithin(run.breaks, startT, now);
  }, [outbox, startT, run.breaks]);
  const [elapsed, setElapsed] = useState(spent);
  useEffect(() => {
    const id = setInterval(() => setElapsed(spent()), 1000);
    return () => clearInterval(id);
  }, [spent]);

  const limits = item.kind === 'page' || item.kind === 'survey' ? null : item.limits;
  const hard = limits ? elapsed >= limits.hardMinutes * 60_000 : false;
  const soft = limits ? elapsed >= limits.softMinutes * 60_000 : false;
  useEffect(() => {
    if (hard) onNext('time_up');
  }, [hard, onNext]);
  // The soft limit's notice is logged once per item (a reload that shows it again logs nothing),
  // so the log says when the participant was told.
  const softLogged = useRef(resume.some((e) => e.kind === 'item.soft_limit' && e.data.item === item.id));
  useEffect(() => {
    if (!soft || hard || !limits || softLogged.current) return;
    softLogged.current = true;
    outbox.append('item.soft_limit', {
      item: item.id,
      softMinutes: limits.softMinutes,
      hardMinutes: limits.hardMinutes,
    });
  }, [soft, hard, limits, outbox, item.id]);

  const giveUp = (
    <LeaveItem
      label="Give up and continue"
      title="Give up this item?"
      confirmLabel="Give up and move on"
      onLeave={() => onNext('gave_up')}
    >
      <p>The study moves on to the next item, and you cannot come back to this one. What you did on it is saved.</p>
    </LeaveItem>
  );
  const left = limits ? Math.max(0, limits.hardMinutes * 60_000 - elapsed) : 0;
  const notice =
    limits && (soft || showTimeLeft) ? (
      <div className="flex items-center justify-center gap-4 bg-sky-900/80 px-4 py-1.5 text-center text-sm text-sky-100">
        {soft && (
          <span role="status">
            You have spent {spokenMinutes(limits.softMinutes)} on this item. You may move on whenever you like; it
            closes after {spokenMinutes(limits.hardMinutes)}.
          </span>
        )}
        {showTimeLeft && (
          <span data-testid="time-left" className="font-mono tabular-nums">
            Time left: {formatClock(left)}
          </span>
        )}
      </div>
    ) : null;

  if (item.kind === 'page') {
    return (
      <Centered>
        <div className="w-full max-w-2xl rounded-xl border border-slate-800 bg-slate-900/70 p-8">
          {item.title && <h1 className="mb-4 text-2xl font-semibold text-white">{item.title}</h1>}
          <div className="text-slate-200">
            <Markdown text={item.markdown} />
          </div>
          <div className="mt-6 flex justify-end">
            <Button tone="primary" onClick={() => onNext('continue')}>
              Continue
            </Button>
          </div>
        </div>
      </Centered>
    );
  }
  if (item.kind === 'survey')
    return (
      <SurveyItemView
        log={outbox}
        sessionId={record.id}
        token={record.token}
        item={item}
        resume={resume}
        onNext={onNext}
        key={item.id}
      />
    );
  if (item.kind === 'task')
    return <TaskItemView run={run} item={item} resume={resume} notice={notice} giveUp={giveUp} onNext={onNext} />;
  if (item.kind === 'question')
    return (
      <QuestionItemView
        log={outbox}
        sessionId={record.id}
        token={record.token}
        item={item}
        resume={resume}
        notice={notice}
        giveUp={giveUp}
        onNext={onNext}
        key={item.id}
      />
    );
  const game = games[item.game];
  if (!game && !item.server)
    return (
      <Centered>
        <p role="alert" className="text-rose-300">
          This study needs the game "{item.game}", which this server does not have. Tell the researcher.
        </p>
      </Centered>
    );
  return (
    <GameItemView
      run={run}
      item={item}
      resume={resume}
      notice={notice}
      giveUp={giveUp}
      onNext={onNext}
      allowReset={view.study.allowLevelReset}
      showCounter={view.study.showActionCounter}
      key={record.id}
    />
  );
}
