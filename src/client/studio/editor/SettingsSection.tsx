/**
 * The study's settings in the editor: order, trials, devices, switches, time limits, completion
 * (code, redirect and its delay), decline, and the study on Prolific.
 */
import { DEVICE_CLASSES, DEVICE_LABELS, type DeviceClass } from '../../../core/study/devices';
import { REDIRECT_AFTER_SECONDS } from '../../../core/study/prolific';
import type { EditorDefinition } from '../pool';
import { Labelled, input } from '../editorFields';
import { NumberField } from './fields';

/** The study's on/off settings, with their defaults, as the editor offers them. */
const SWITCHES: readonly {
  key: 'allowLevelReset' | 'showActionCounter' | 'showTimeLeft';
  on: boolean;
  label: string;
}[] = [
  { key: 'allowLevelReset', on: true, label: 'Players may reset a game level' },
  { key: 'showActionCounter', on: true, label: 'Show game players their action counter' },
  { key: 'showTimeLeft', on: false, label: 'Show participants the time left on each item' },
];

/** Sets one field of the definition. */
export type SetField = <K extends keyof EditorDefinition>(k: K, v: EditorDefinition[K]) => void;

export function SettingsSection({ def, set }: { def: EditorDefinition; set: SetField }) {
  return (
    <section className="grid gap-3 md:grid-cols-3">
      <label className="flex flex-col gap-1 text-sm text-slate-300">
        Order
        <select
          aria-label="Order"
          className={input}
          value={def.order ?? 'fixed'}
          onChange={(e) => set('order', e.target.value as 'fixed' | 'shuffled')}
        >
          <option value="fixed">Fixed</option>
          <option value="shuffled">Shuffled per participant (pages and practice stay)</option>
        </select>
      </label>
      <NumberField
        label="Trials per test input"
        path="trials"
        value={def.trials ?? 3}
        onChange={(v) => set('trials', v)}
      />
      <label className="flex flex-col gap-1 text-sm text-slate-300">
        Devices
        <select
          aria-label="Devices"
          className={input}
          value={def.devices ?? 'tablet'}
          onChange={(e) => set('devices', e.target.value as DeviceClass)}
        >
          {DEVICE_CLASSES.map((d) => (
            <option key={d} value={d}>
              {DEVICE_LABELS[d]}
            </option>
          ))}
        </select>
      </label>
      <div className="flex flex-col gap-1 pt-5 text-sm text-slate-300">
        {SWITCHES.map(({ key, on, label }) => (
          <label key={key} className="flex items-center gap-2">
            <input type="checkbox" checked={def[key] ?? on} onChange={(e) => set(key, e.target.checked)} /> {label}
          </label>
        ))}
      </div>
      <NumberField
        label="Soft limit per item (min)"
        path="limits.itemSoftMinutes"
        value={def.limits?.itemSoftMinutes ?? 20}
        onChange={(v) => set('limits', { ...def.limits, itemSoftMinutes: v })}
      />
      <NumberField
        label="Hard limit per item (min)"
        path="limits.itemHardMinutes"
        value={def.limits?.itemHardMinutes ?? 30}
        onChange={(v) => set('limits', { ...def.limits, itemHardMinutes: v })}
      />
      <NumberField
        label="Session limit (min)"
        path="limits.sessionMinutes"
        value={def.limits?.sessionMinutes ?? 90}
        onChange={(v) => set('limits', { ...def.limits, sessionMinutes: v })}
      />
      <Labelled label="Completion code" path="completion.code">
        {(a) => (
          <input
            className={input}
            {...a}
            value={def.completion.code}
            onChange={(e) => set('completion', { ...def.completion, code: e.target.value })}
          />
        )}
      </Labelled>
      <Labelled label="Redirect URL at the end (optional)" path="completion.redirectUrl" className="md:col-span-2">
        {(a) => (
          <input
            className={input}
            {...a}
            value={def.completion.redirectUrl ?? ''}
            placeholder="https://app.prolific.com/submissions/complete?cc=CODE"
            onChange={(e) => set('completion', { ...def.completion, redirectUrl: e.target.value || undefined })}
          />
        )}
      </Labelled>
      <Labelled label="Seconds before sending participants on (optional)" path="completion.redirectAfterSeconds">
        {(a) => (
          <input
            type="number"
            className={input}
            {...a}
            min={0}
            max={600}
            value={def.completion.redirectAfterSeconds ?? ''}
            placeholder={String(REDIRECT_AFTER_SECONDS)}
            onChange={(e) =>
              set('completion', {
                ...def.completion,
                redirectAfterSeconds: e.target.value === '' ? undefined : Number(e.target.value),
              })
            }
          />
        )}
      </Labelled>
      <ProlificFields def={def} set={set} />
      <Labelled label="Code for those who do not consent (optional)" path="decline.code">
        {(a) => (
          <input
            className={input}
            {...a}
            value={def.decline?.code ?? ''}
            placeholder="NOCONSENT"
            onChange={(e) => set('decline', { ...def.decline, code: e.target.value || undefined })}
          />
        )}
      </Labelled>
      <Labelled
        label="Message for those who do not consent (optional, Markdown)"
        path="decline.message"
        className="md:col-span-2"
      >
        {(a) => (
          <input
            className={input}
            {...a}
            value={def.decline?.message ?? ''}
            placeholder="Thank you for considering the study."
            onChange={(e) => set('decline', { ...def.decline, message: e.target.value || undefined })}
          />
        )}
      </Labelled>
    </section>
  );
}

/**
 * The study on Prolific: its id (bonuses paid from the studio, returns and time-outs read from
 * Prolific, and Prolific's completion URL as the redirect) and what a participant who returned
 * may do on coming back. An empty id takes the study off Prolific.
 */
function ProlificFields({ def, set }: { def: EditorDefinition; set: SetField }) {
  const studyId = def.prolific?.studyId ?? '';
  return (
    <>
      <Labelled label="Prolific study id (optional)" path="prolific.studyId">
        {(a) => (
          <input
            className={input}
            {...a}
            value={studyId}
            placeholder="60a1b2c3d4e5f6a7b8c9d0e1"
            onChange={(e) => set('prolific', e.target.value ? { ...def.prolific, studyId: e.target.value } : undefined)}
          />
        )}
      </Labelled>
      <Labelled label="A participant who returned their submission and comes back" path="prolific.afterReturn">
        {(a) => (
          <select
            className={input}
            {...a}
            disabled={!studyId}
            value={def.prolific?.afterReturn ?? 'refuse'}
            onChange={(e) => set('prolific', { studyId, afterReturn: e.target.value as 'refuse' | 'allow' })}
          >
            <option value="refuse">is not let in again</option>
            <option value="allow">may start again (flagged)</option>
          </select>
        )}
      </Labelled>
    </>
  );
}
