import {
  isEnvelope,
  PROTOCOL_VERSION,
  type FieldConfig,
  type FieldLaunch,
  type FieldMessage,
  type HostedFieldName,
  type ParentMessage,
} from '../shared/protocol.ts';

/**
 * The merchant-page side of one hosted field: the iframe on the gateway's origin and its message channel
 * (schema in ../shared/protocol.ts). Messages are posted to the gateway's origin only, and accepted only
 * from this iframe's window, from that origin, on this channel.
 */
export interface HostedField {
  readonly field: HostedFieldName;
  readonly iframe: HTMLIFrameElement;
  send(message: ParentMessage): void;
  destroy(): void;
}

export function randomChannel(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function attachHostedField(
  iframe: HTMLIFrameElement,
  setup: {
    field: HostedFieldName;
    channel: string;
    staticBaseUrl: string;
    config: () => FieldConfig;
    onMessage: (message: FieldMessage) => void;
  },
): HostedField {
  const gatewayOrigin = new URL(setup.staticBaseUrl, location.href).origin;
  const launch: FieldLaunch = { channel: setup.channel, field: setup.field, parentOrigin: location.origin };
  let ready = false;
  const queue: ParentMessage[] = [];

  const post = (message: ParentMessage) =>
    iframe.contentWindow?.postMessage({ ...message, v: PROTOCOL_VERSION, channel: setup.channel }, gatewayOrigin);

  const onWindowMessage = (event: MessageEvent) => {
    if (event.origin !== gatewayOrigin || event.source !== iframe.contentWindow || !isEnvelope(event.data, setup.channel)) return;
    const message = event.data as unknown as FieldMessage;
    if (message.type === 'ready') {
      ready = true;
      post({ type: 'configure', ...setup.config() });
      for (const pending of queue.splice(0)) post(pending);
    }
    setup.onMessage(message);
  };
  window.addEventListener('message', onWindowMessage);
  iframe.src = `${setup.staticBaseUrl}/fields.html#${encodeURIComponent(JSON.stringify(launch))}`;

  return {
    field: setup.field,
    iframe,
    send(message) {
      if (ready) post(message);
      else queue.push(message);
    },
    destroy() {
      window.removeEventListener('message', onWindowMessage);
    },
  };
}
