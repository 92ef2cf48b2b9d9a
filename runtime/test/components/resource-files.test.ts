import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { readResourceDocuments } from '../../src/components/resource-files.js';
import { removeTempFolder, tempFolder } from '../support/temp-folders.js';

describe('resource files (the one reader of the resources paths)', () => {
  it('reads the files of a folder in name order by character codes: upper case before lower case, then each file in document order', async () => {
    const folder = tempFolder('resource-files-');
    try {
      writeFileSync(path.join(folder, 'b.yaml'), 'n: b1\n---\nn: b2\n');
      writeFileSync(path.join(folder, 'a.yml'), 'n: a\n');
      writeFileSync(path.join(folder, 'B.yaml'), 'n: B\n');
      writeFileSync(path.join(folder, '_z.yaml'), 'n: _z\n');
      const docs = await readResourceDocuments([folder], pino({ level: 'silent' }));
      expect(docs.map((d) => (d.doc as { n: string }).n)).to.deep.equal(['B', '_z', 'a', 'b1', 'b2']);
      expect(docs[3]!.source).to.equal(`file ${path.join(folder, 'b.yaml')} (document 1)`);
    } finally {
      removeTempFolder(folder);
    }
  });
});
