/** A grid task in a study: the player, judged by the server, with its written descriptions. */
import { useMemo, useRef, useState } from 'react';
import type { LogEvent } from '../../core/log/events';
import { TaskPlayer } from '../player/TaskPlayer';
import { DescribeForm } from './DescribeForm';
import { Modal } from '../ui/Modal';
import { Button } from '../ui/Button';
import { studyJudge, type SessionItem } from './api';
import { usePlayer } from '../player/store';
import { taskFinished } from '../../core/log/gridPlayer';
import type { Running } from './running';
import { PracticeTag } from './LeaveItem';

export function TaskItemView({
  run,
  item,
  resume,
  notice,
  giveUp,
  onNext,
}: {
  run: Running;
  item: Extract<SessionItem, { kind: 'task' }>;
  resume: LogEvent[];
  notice: React.ReactNode;
  giveUp: React.ReactNode;
  onNext: (r: string) => void;
}) {
  const { outbox, view, record } = run;
  const open = useMemo(() => ({ task: item.task, taskId: item.id, collection: 'study' }), [item]);
  const firstDone = useRef(resume.some((e) => e.kind === 'description.submit' && e.data.stage === 'first'));
  const [askFirst, setAskFirst] = useState(
    () => !!item.describe && !firstDone.current && resume.some((e) => e.kind === 'submit'),
  );
  const judge = useMemo(() => {
    const inner = studyJudge(record.id, record.token, item.id, item.testIndices, outbox);
    if (!item.describe) return inner;
    // The first written description follows the first submission; one after it asks for the last.
    return {
      ...inner,
      submit: async (...args: Parameters<typeof inner.submit>) => {
        const r = await inner.submit(...args);
        if (!firstDone.current) setAskFirst(true);
        else run.describeLast.set(item.id, true);
        return r;
      },
    };
  }, [record, item, outbox, run]);
  const finished = usePlayer((s) => s.state.taskId === item.id && taskFinished(s.state));
  return (
    <div className="flex h-full flex-col">
      {askFirst && item.describe && (
        <Modal labelledBy={`describe-${item.id}`} testId="describe-dialog">
          <DescribeForm
            log={outbox}
            sessionId={record.id}
            token={record.token}
            item={item.id}
            stage="first"
            prompt={item.describe.prompt}
            resume={resume}
            titleId={`describe-${item.id}`}
            onSaved={() => {
              firstDone.current = true;
              setAskFirst(false);
            }}
          />
        </Modal>
      )}
      {notice}
      {/* The page's heading for a screen reader: the grids and tools say the rest. */}
      <h1 className="sr-only">{view.study.title}: grid task</h1>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <TaskPlayer
          open={open}
          sink={outbox}
          judge={judge}
          trials={view.study.trials}
          resume={resume}
          toolbar={
            <>
              <PracticeTag practice={item.practice} />
              {!finished && giveUp}
            </>
          }
          onFinishedAction={
            <Button tone="primary" onClick={() => onNext('finished')}>
              Next
            </Button>
          }
        />
      </div>
    </div>
  );
}
