import { randomBytes } from 'node:crypto';
import type { PendingUpload } from './s3-uploads.ts';

/** The XML bodies the test S3 server's proxy writes itself, shaped as S3 writes them. */

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
const element = (name: string, value: string) => `<${name}>${escape(value)}</${name}>`;

export const requestId = () => randomBytes(8).toString('hex').toUpperCase();

export function errorXml(code: string, message: string, id: string): string {
  return `${HEAD}<Error>${element('Code', code)}${element('Message', message)}${element('RequestId', id)}</Error>`;
}

export function listMultipartUploadsXml(bucket: string, prefix: string, uploads: PendingUpload[]): string {
  const entries = uploads.map(
    (u) =>
      `<Upload>${element('Key', u.key)}${element('UploadId', u.uploadId)}${element('Initiated', u.initiated.toISOString())}${element('StorageClass', 'STANDARD')}</Upload>`,
  );
  return (
    `${HEAD}<ListMultipartUploadsResult xmlns="${NS}">${element('Bucket', bucket)}${element('KeyMarker', '')}${element('UploadIdMarker', '')}` +
    `${element('Prefix', prefix)}${element('MaxUploads', '1000')}${element('IsTruncated', 'false')}${entries.join('')}</ListMultipartUploadsResult>`
  );
}
