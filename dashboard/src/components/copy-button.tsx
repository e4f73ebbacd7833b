/** Copies a text to the clipboard and says so until the text changes. */
import { useEffect, useState } from 'preact/hooks';

export function CopyButton(props: { text: string; testid?: string }) {
  const [copied, setCopied] = useState(false);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    setCopied(false);
    setFailed(false);
  }, [props.text]);
  return (
    <button
      type="button"
      data-testid={props.testid}
      title={failed ? 'The browser refused the clipboard: select the link and copy it by hand' : undefined}
      onClick={() =>
        void navigator.clipboard.writeText(props.text).then(
          () => setCopied(true),
          () => setFailed(true),
        )
      }
    >
      {copied ? 'Copied' : failed ? 'Copy failed' : 'Copy'}
    </button>
  );
}
