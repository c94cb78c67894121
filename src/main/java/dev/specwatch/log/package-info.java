/** Logback extensions (named in logback.xml): log lines scrubbed of credentials. */
package dev.specwatch.log;
