import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { dateFormat } from '../i18n/format.ts';
import { t } from '../i18n/report.ts';
import { isOwner, session } from '../session.ts';

type Note = Schema<'Annotation'>;

const dayFormat = dateFormat({
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const dayLabel = (day: string) => dayFormat.format(Date.parse(`${day}T00:00:00Z`));
/** A note's day, or its span, as people read it. */
export const noteWhen = (n: Pick<Note, 'date' | 'end_date'>) =>
  n.end_date ? `${dayLabel(n.date)} – ${dayLabel(n.end_date)}` : dayLabel(n.date);

/** The form that writes a note or changes one: its day, an optional last day, its words. */
function NoteForm(props: {
  site: string;
  note?: Note;
  defaultDay: string;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [date, setDate] = useState(props.note?.date ?? props.defaultDay);
  const [endDate, setEndDate] = useState(props.note?.end_date ?? '');
  const [text, setText] = useState(props.note?.text ?? '');
  const save = useSubmit(async () => {
    const body = { date, end_date: endDate || null, text };
    if (props.note) {
      await unwrap(
        api.PATCH('/api/v1/sites/{site}/annotations/{id}', {
          params: { path: { site: props.site, id: props.note.id } },
          body,
        }),
      );
    } else {
      await unwrap(
        api.POST('/api/v1/sites/{site}/annotations', { params: { path: { site: props.site } }, body }),
      );
    }
    props.onDone();
  });
  return (
    <form class="note-form" onSubmit={save.submit}>
      <Field label={t('noteDay')} error={save.fieldError('date')}>
        {(id, describedBy) => (
          <input
            id={id}
            type="date"
            required
            value={date}
            aria-describedby={describedBy}
            onInput={(e) => setDate(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('noteUntil')} error={save.fieldError('end_date')}>
        {(id, describedBy) => (
          <input
            id={id}
            type="date"
            value={endDate}
            min={date}
            aria-describedby={describedBy}
            onInput={(e) => setEndDate(e.currentTarget.value)}
          />
        )}
      </Field>
      <div class="note-text-field">
        <Field label={t('note')} error={save.fieldError('text')}>
          {(id, describedBy) => (
            <input
              id={id}
              type="text"
              required
              maxLength={500}
              placeholder={t('noteExample')}
              value={text}
              aria-describedby={describedBy}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <div class="row">
        <button type="submit" class="button small" disabled={save.busy}>
          {props.note ? t('saveNote') : t('addTheNote')}
        </button>
        <button type="button" class="button secondary small" onClick={props.onCancel}>
          {t('cancel')}
        </button>
      </div>
      <ErrorNote error={save.formError('date', 'end_date', 'text')} />
    </form>
  );
}

function NoteRow(props: { site: string; note: Note; onChanged: () => void }) {
  const { note } = props;
  const [editing, setEditing] = useState(false);
  const remove = useSubmit(async () => {
    await unwrap(
      api.DELETE('/api/v1/sites/{site}/annotations/{id}', {
        params: { path: { site: props.site, id: note.id } },
      }),
    );
    props.onChanged();
  });
  if (editing) {
    return (
      <li>
        <NoteForm
          site={props.site}
          note={note}
          defaultDay={note.date}
          onDone={() => {
            setEditing(false);
            props.onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      </li>
    );
  }
  return (
    <li>
      <span class="note-when">⚑ {noteWhen(note)}</span>
      <span class="note-text">{note.text}</span>
      {/* a shared dashboard (nobody signed in) never says who wrote a note */}
      {session.value && <span class="muted">{note.author ? note.author.email : t('formerMember')}</span>}
      {isOwner.value && (
        <span class="row">
          <button
            type="button"
            class="button secondary small"
            onClick={() => setEditing(true)}
            aria-label={t('editNoteOf', { when: noteWhen(note) })}
          >
            {t('edit')}
          </button>
          <ConfirmAction
            ask={t('deleteAsk')}
            askLabel={t('deleteNoteOf', { when: noteWhen(note) })}
            confirm={t('deleteNote')}
            busy={remove.busy}
            onConfirm={() => remove.submit()}
          />
        </span>
      )}
      <ErrorNote error={remove.error} />
    </li>
  );
}

/**
 * The notes of the period under the chart (each also a flag on it): what happened when, and who
 * wrote it. Owners add, edit and delete notes here; everyone else reads them.
 */
export function Notes(props: {
  site: string;
  notes: Note[];
  /** the day a new note starts on: the period's last day, or today */
  defaultDay: string;
  onChanged: () => void;
}) {
  const [adding, setAdding] = useState(false);
  if (props.notes.length === 0 && !isOwner.value) return null;
  return (
    <section class="notes card" aria-labelledby="notes-title">
      <div class="spread">
        <h2 id="notes-title">
          {props.notes.length > 0 ? t('notesCount', { count: props.notes.length }) : t('notes')}
        </h2>
        {isOwner.value && !adding && (
          <button type="button" class="button secondary small" onClick={() => setAdding(true)}>
            {t('addNote')}
          </button>
        )}
      </div>
      {props.notes.length === 0 && !adding && <p class="muted">{t('notesHint')}</p>}
      {adding && (
        <NoteForm
          site={props.site}
          defaultDay={props.defaultDay}
          onDone={() => {
            setAdding(false);
            props.onChanged();
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      {props.notes.length > 0 && (
        <ul>
          {props.notes.map((n) => (
            <NoteRow key={n.id} site={props.site} note={n} onChanged={props.onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}
