package io.iwarp4j.it.wirecheck;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * A streaming reader of tshark's PDML ({@code -T pdml}): one {@link Node} tree per packet, handed
 * to a consumer and then dropped, so a capture of any size is read in constant memory. A node is
 * a {@code <proto>} or a {@code <field>} with its {@code name}, {@code show}, {@code value},
 * {@code showname} and {@code pos} attributes.
 */
final class Pdml {
  private Pdml() {
  }

  /** One {@code <proto>} or {@code <field>} element. */
  static final class Node {
    final String name;
    final String show;
    final String value;
    final String showname;
    final int pos;
    final List<Node> children = new ArrayList<>(4);

    Node(String name, String show, String value, String showname, int pos) {
      this.name = name;
      this.show = show;
      this.value = value;
      this.showname = showname;
      this.pos = pos;
    }

    /** The first node named {@code n} in this subtree (depth first, document order), or null. */
    Node first(String n) {
      for (Node c : children) {
        if (n.equals(c.name)) {
          return c;
        }
        Node f = c.first(n);
        if (f != null) {
          return f;
        }
      }
      return null;
    }

    /** Every node named {@code n} in this subtree, in document order. */
    List<Node> all(String n) {
      List<Node> out = new ArrayList<>();
      collect(n, out);
      return out;
    }

    private void collect(String n, List<Node> out) {
      for (Node c : children) {
        if (n.equals(c.name)) {
          out.add(c);
        }
        c.collect(n, out);
      }
    }

    boolean has(String n) {
      return first(n) != null;
    }

    /** The number {@code n} shows (decimal, 0x-hex or colon-separated hex octets), or null. */
    Long number(String n) {
      Node f = first(n);
      return f == null ? null : parseNumber(f.show);
    }

    /** The raw octets of field {@code n} (its {@code value} attribute), or null. */
    byte[] octets(String n) {
      Node f = first(n);
      return f == null ? null : hex(f.value);
    }
  }

  /** Reads every packet of {@code pdml}, calling {@code packet} with its top-level protos. */
  static void read(InputStream pdml, Consumer<List<Node>> packet) throws XMLStreamException {
    XMLInputFactory f = XMLInputFactory.newInstance();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    XMLStreamReader r = f.createXMLStreamReader(pdml);
    Deque<Node> open = new ArrayDeque<>();
    List<Node> protos = null;
    while (r.hasNext()) {
      int ev = r.next();
      if (ev == XMLStreamConstants.START_ELEMENT) {
        String tag = r.getLocalName();
        if (tag.equals("packet")) {
          protos = new ArrayList<>();
          open.clear();
        } else if (protos != null && (tag.equals("proto") || tag.equals("field"))) {
          String pos = r.getAttributeValue(null, "pos");
          Node node = new Node(nz(r.getAttributeValue(null, "name")),
              r.getAttributeValue(null, "show"), r.getAttributeValue(null, "value"),
              r.getAttributeValue(null, "showname"), pos == null ? -1 : parseInt(pos));
          if (open.isEmpty()) {
            protos.add(node);
          } else {
            open.peek().children.add(node);
          }
          open.push(node);
        }
      } else if (ev == XMLStreamConstants.END_ELEMENT) {
        String tag = r.getLocalName();
        if (tag.equals("packet") && protos != null) {
          packet.accept(protos);
          protos = null;
        } else if (protos != null && (tag.equals("proto") || tag.equals("field"))) {
          open.pop();
        }
      }
    }
    r.close();
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }

  private static int parseInt(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Parses tshark's display of a number: "12", "0x0c" or "00:0c"; null when it is none. */
  static Long parseNumber(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    String t = s.strip();
    try {
      if (t.startsWith("0x") || t.startsWith("0X")) {
        return Long.parseUnsignedLong(t.substring(2), 16);
      }
      if (t.chars().allMatch(Character::isDigit)) {
        return Long.parseUnsignedLong(t);
      }
      String h = t.replace(":", "");
      if (!h.isEmpty() && h.length() <= 16) {
        return Long.parseUnsignedLong(h, 16);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return null;
  }

  /** Hex text (optionally with colons) to octets; null for null or malformed text. */
  static byte[] hex(String s) {
    if (s == null) {
      return null;
    }
    String h = s.replace(":", "");
    if (h.length() % 2 != 0) {
      return null;
    }
    byte[] out = new byte[h.length() / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = Character.digit(h.charAt(2 * i), 16);
      int lo = Character.digit(h.charAt(2 * i + 1), 16);
      if (hi < 0 || lo < 0) {
        return null;
      }
      out[i] = (byte) (hi << 4 | lo);
    }
    return out;
  }
}
