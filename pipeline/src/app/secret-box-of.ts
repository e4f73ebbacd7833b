/** The secret box that opens the ad connections' tokens, from SECRETS_KEY (null when it is not set). */
import type { Sealer } from '../../../storage/ad-connections';
import { createSecretBox, parseSecretsKey } from '../../../storage/secret-box';

export function secretBoxOf(secretsKey: string): Sealer | null {
  return secretsKey.trim() === '' ? null : createSecretBox(parseSecretsKey(secretsKey));
}
