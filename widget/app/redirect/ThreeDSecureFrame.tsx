import { useEffect, useRef } from 'preact/hooks';
import type { FrameRequest } from '../types.ts';

/**
 * The widget's own 3-D Secure frame, shown in the form's container (the form hidden) while a redirect runs:
 *
 *   div.wpwl-group.wpwl-group-threeDSecure > iframe.wpwl-target[name=<unique>][title=<labels.threeDSecureFrameTitle>]
 *
 * 100% wide and 580px high unless wpwlOptions.threeDIframeSize says otherwise, and never wider than its
 * container (max-width: 100%), so it fits small screens. Sizes are set through the CSSOM, which a strict
 * Content-Security-Policy allows (no style attribute).
 */
export function ThreeDSecureFrame({ request }: { request: FrameRequest }) {
  const iframe = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    const element = iframe.current;
    if (!element) return;
    element.focus();
    request.mounted(element);
  }, [request]);
  return (
    <div class="wpwl-group wpwl-group-threeDSecure wpwl-clearfix">
      <iframe
        ref={iframe}
        class="wpwl-target"
        name={request.name}
        title={request.title}
        style={{ display: 'block', width: request.width, height: request.height, maxWidth: '100%' }}
        onLoad={(event) => request.loaded(event.currentTarget as HTMLIFrameElement)}
      />
    </div>
  );
}
