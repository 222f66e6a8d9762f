import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';

/**
 * A secret the gateway answered once (a webhook's generated secret, a new access token): shown in full, selectable,
 * with what to do with it, until `onHide` (or leaving the page). The gateway keeps no copy it could show again, so
 * the box says so. It takes the focus when it appears, so a keyboard or screen-reader user finds it.
 */
export function OnceShown(props: { readonly title: string; readonly value: string; readonly note: string; readonly onHide: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.focus();
  }, [props.value]);
  return (
    <div ref={box} tabIndex={-1} class="message message-info once-shown" role="group" aria-label={props.title}>
      <p class="message-title">{props.title}</p>
      <p>
        <code class="mono once-shown-value">{props.value}</code>
      </p>
      <p>{props.note}</p>
      <div class="buttons">
        <button type="button" class="button" onClick={props.onHide}>
          {t('actions.hideSecret')}
        </button>
      </div>
    </div>
  );
}
