import type { Translation } from '../catalogue.ts';
import type en from '../en/share.ts';

export default {
  linkOpensNothing: 'Este enlace no abre nada',
  linkRevoked: 'Puede que se haya revocado. Pide uno nuevo a quien te lo envió.',
  opening: 'Abriendo el panel compartido',
  openShared: 'Abrir el panel compartido',
  sharedDashboard: 'Un panel compartido',
  passwordProtected: 'Este panel está protegido con una contraseña.',
  password: 'Contraseña',
  open: 'Abrir',
  documentTitle: '{domain} · compartido mediante Footfall',
  readOnly: 'Un panel compartido, de solo lectura',
  countedBy: 'Contado por Footfall.',
} satisfies Translation<typeof en>;
